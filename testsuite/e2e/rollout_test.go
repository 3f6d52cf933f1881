package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// A fleet of 50 instances on real git, terraform and ArgoCD takes a rollout in batches of 10.
// One instance's terraform state is locked out of band, so its deploy fails in batch 3: the
// rollout stops at --max-failures 1 with batches 4 and 5 untouched. After the lock is gone,
// resume retries it and the rest follow; every ConfigMap in the cluster then has the change.
func TestFleetRolloutStopsOnFailureAndResumes(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	const n = 50
	cfg := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n")
	start := time.Now()
	forEach(t, n, 8, func(i int) {
		e.MustCLI(0, "create", fleetRef(i), "-f", cfg, "--wait")
		e.MustCLI(0, "deploy", fleetRef(i), "--wait")
	})
	t.Logf("fleet of %d created and deployed in %s", n, time.Since(start).Round(time.Millisecond))

	args := []string{"--stack", "example", "--tenant", "fleet", "--set", "replicas=2", "--batch", "10", "--order", "ordinal"}
	plan := e.MustCLI(0, append([]string{"rollout", "plan"}, args...)...)
	require.Contains(t, plan.Stdout, "50 to update in 5 batch(es) of 10, 0 skipped")
	require.Regexp(t, `(?m)^3\s+fleet/web-23\s+Deployed\s+replicas=1\s+replicas=2`, plan.Stdout, "ordinal order: web-20..29 are batch 3")

	unlock := lockState(t, e, "fleet", "web-23")
	start = time.Now()
	out := e.CLI(append([]string{"rollout", "start", "--id", "fleet", "--max-failures", "1", "--wait"}, args...)...)
	require.Equal(t, 1, out.Code, "a stopped rollout exits 1: %s\n%s", out.Stdout, out.Stderr)
	t.Logf("to the stop: %s\n%s", time.Since(start).Round(time.Millisecond), out.Stdout)
	// The follower reads from the batch it last saw on, and still prints each instance's end once.
	require.Len(t, ended(out.Stdout, "updated"), 29, "%s", out.Stdout)
	require.Equal(t, []string{"fleet/web-23"}, ended(out.Stdout, "failed"))
	st := rolloutStatus(t, e, "fleet")
	require.Equal(t, contract.PhaseStopped, st.Phase)
	require.Contains(t, st.Reason, "fleet/web-23")
	require.Equal(t, []string{"1: 10/10/50", "2: 20/20/50"}, batchCounts(st.Ended))
	require.Equal(t, 29, st.Updated, "batch 3 ran but for web-23")
	require.Equal(t, lifecycle.DeploymentFailed, e.Status("fleet/web-23").State)
	require.Equal(t, "rollout/fleet", e.Status("fleet/web-23").Rollout, "status names the instance's rollout")
	require.Equal(t, "1", fleetConfigMap(t, e, stack, 40)["replicas"], "batch 5 never started")
	require.Equal(t, "2", fleetConfigMap(t, e, stack, 22)["replicas"])

	unlock()
	e.MustCLI(0, "rollout", "resume", "fleet", "--reason", "state unlocked")
	start = time.Now()
	follow := e.MustCLI(0, "rollout", "status", "fleet", "--follow")
	t.Logf("resume to completion: %s", time.Since(start).Round(time.Millisecond))
	require.Len(t, ended(follow.Stdout, "updated"), 50, "the first read shows the 29 updated before; then web-23 and batches 4 and 5: %s", follow.Stdout)
	st = rolloutStatus(t, e, "fleet")
	require.Equal(t, contract.PhaseCompleted, st.Phase)
	require.Equal(t, []string{"1: 10/10/50", "2: 20/20/50", "3: 30/30/50", "4: 40/40/50", "5: 50/50/50"}, batchCounts(st.Ended))
	for i := range n {
		require.Equal(t, "2", fleetConfigMap(t, e, stack, i)["replicas"], fleetRef(i))
	}
	list := e.MustCLI(0, "list", "--tenant", "fleet", "--json")
	require.Contains(t, list.Stdout, `"rollout": "rollout/fleet"`)
	again := e.MustCLI(0, append([]string{"rollout", "plan"}, args...)...)
	require.Contains(t, again.Stdout, "0 to update in 0 batch(es) of 10, 50 skipped", "everything is at the target")
}

func fleetRef(i int) string { return fmt.Sprintf("fleet/web-%d", i) }

// ended lists the instances a followed rollout printed as ended with status, once each or failing.
func ended(out, status string) []string {
	var refs []string
	for _, m := range regexp.MustCompile(`(?m)^  batch \d+  (\S+)\s+`+status+`\b`).FindAllStringSubmatch(out, -1) {
		refs = append(refs, m[1])
	}
	return refs
}

// forEach runs fn for 0..n-1, at most par at once.
func forEach(t *testing.T, n, par int, fn func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			fn(i)
		}()
	}
	wg.Wait()
}

// lockState holds terraform's own lock on an instance's local state file, as another
// terraform run would; the returned func lets go of it.
func lockState(t *testing.T, e *testsuite.Env, tenant, name string) func() {
	runner, ok := e.Activities.Terraform.(*terraform.Runner)
	require.True(t, ok, "the env runs real terraform")
	f, err := os.OpenFile(runner.StatePath(terraform.Workspace{Tenant: tenant, Name: name}), os.O_RDWR, 0)
	require.NoError(t, err)
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	require.NoError(t, syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk))
	var once sync.Once
	release := func() { once.Do(func() { f.Close() }) }
	t.Cleanup(release)
	return release
}

// rolloutStatus reads a rollout's status.
func rolloutStatus(t *testing.T, e *testsuite.Env, id string) contract.RolloutStatus {
	out := e.CLI("rollout", "status", id, "--json")
	require.Equal(t, 0, out.Code, "rollout status %s: %s", id, out.Stderr)
	var st contract.RolloutStatus
	require.NoError(t, json.Unmarshal([]byte(out.Stdout), &st))
	return st
}

func batchCounts(ended []contract.BatchRecord) []string {
	var out []string
	for _, b := range ended {
		out = append(out, fmt.Sprintf("%d: %d/%d/%d", b.Batch, b.Ready, b.Updated, b.Total))
	}
	return out
}

func fleetConfigMap(t *testing.T, e *testsuite.Env, s *cluster.Stack, i int) map[string]string {
	st := e.Status(fleetRef(i))
	require.NotNil(t, st.Names)
	return configMap(t, s, st.Names.Namespace)
}
