package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
)

// A KillPoint is where a worker SIGKILLs itself: before an activity runs, after it ran
// but before its result reached the server, or in the middle of a long one.
type KillPoint struct {
	Op       int    // 1-based operation of the lifecycle (see lifecycleOps)
	Activity string // activity type
	Phase    string // before | after | mid
}

const (
	phaseBefore = "before"
	phaseAfter  = "after"
	phaseMid    = "mid"
	phaseGit    = "git" // inside git's update of main, while refs/heads/main.lock exists
	// Inside terraform init (stackTime), while it holds the plugin cache: as it unpacks the
	// provider into the cache, a part of it written; and as the lock file it writes appears.
	phaseCache    = "cache"
	phaseLockFile = "lockfile"
)

// needsProvider says the point lands inside a provider's install: its lifecycle uses stackTime.
func (k KillPoint) needsProvider() bool { return k.Phase == phaseCache || k.Phase == phaseLockFile }

func (k KillPoint) String() string {
	return fmt.Sprintf("%s/%s/%s", lifecycleOps[k.Op-1].label, k.Activity, k.Phase)
}

// env is how the driver arms a worker: "op:activity:phase".
func (k KillPoint) env() string { return fmt.Sprintf("%d:%s:%s", k.Op, k.Activity, k.Phase) }

func parseKillPoint(s string) (KillPoint, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return KillPoint{}, fmt.Errorf("%s=%q: want op:activity:phase", envKill, s)
	}
	op, err := strconv.Atoi(parts[0])
	if err != nil || op < 1 || op > len(lifecycleOps) {
		return KillPoint{}, fmt.Errorf("%s=%q: op must be 1-%d", envKill, s, len(lifecycleOps))
	}
	return KillPoint{Op: op, Activity: parts[1], Phase: parts[2]}, nil
}

// AllKillPoints covers every step boundary that has an external effect, across
// create → deploy → update → archive → deprovision, and the middle of each long activity.
func AllKillPoints(deployer string) []KillPoint {
	var ks []KillPoint
	add := func(op int, act string, phases ...string) {
		for _, p := range phases {
			ks = append(ks, KillPoint{Op: op, Activity: act, Phase: p})
		}
	}
	b, a, m := phaseBefore, phaseAfter, phaseMid
	add(opCreate, contract.ActValidateConfig, b)
	add(opCreate, contract.ActOpenMR, b, a)
	add(opCreate, contract.ActMergeMR, b, phaseGit, a)
	add(opDeploy, contract.ActResolveRevision, a)
	add(opDeploy, contract.ActTerraformInit, phaseCache, phaseLockFile, a)
	add(opDeploy, contract.ActTerraformPlan, a)
	add(opDeploy, contract.ActTerraformApply, b, m, a)
	add(opDeploy, contract.ActBootstrapSecrets, a)
	add(opDeploy, contract.ActDeployApp, b, a)
	add(opUpdate, contract.ActOpenMR, a)
	add(opUpdate, contract.ActMergeMR, a)
	add(opUpdate, contract.ActTerraformApply, m, a)
	add(opArchive, contract.ActRemoveApp, b, a)
	// Under the policy a deprovision plans its destroy (the policy reads that plan) and applies it.
	add(opDeprovision, contract.ActTerraformPlan, a)
	add(opDeprovision, contract.ActTerraformApply, b, m, a)
	add(opDeprovision, contract.ActForgetSecrets, a)
	add(opDeprovision, contract.ActOpenMR, a)
	add(opDeprovision, contract.ActMergeMR, a)
	if deployer == "argocd" {
		add(opDeploy, contract.ActDeployApp, m)
		add(opUpdate, contract.ActDeployApp, m)
		add(opArchive, contract.ActRemoveApp, m)
	}
	return ks
}

// filterPoints keeps the points whose name contains one of the comma-separated parts.
func filterPoints(all []KillPoint, parts string) []KillPoint {
	if strings.TrimSpace(parts) == "" {
		return all
	}
	var out []KillPoint
	for _, k := range all {
		for _, p := range strings.Split(parts, ",") {
			if p = strings.TrimSpace(p); p != "" && strings.Contains(k.String(), p) {
				out = append(out, k)
				break
			}
		}
	}
	return out
}
