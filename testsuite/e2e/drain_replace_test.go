package e2e

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// extraManifest is one more object while the mode parameter says extra.
const extraManifest = `{{ if eq .Params.mode "extra" }}apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
  namespace: {{ .Namespace }}
data:
  mode: extra
{{ end }}`

// replaceDrainScript logs what it is told, one line a call, and is done at once.
const replaceDrainScript = `#!/bin/sh
printf '%s|%s|%s\n' "$SLIPWAY_CALL" "$SLIPWAY_INSTANCE_STATE" "$SLIPWAY_INSTANCE_NEXT_STATE" >> LOGFILE
echo 0
`

// BOSH's drain during an update, on the real stack (git, terraform, ArgoCD, kube-apiserver): a
// deploy that only adds or changes in place does not drain; one whose plan replaces a resource
// the stack marks stateful drains after its approval and before its apply, told the deployment
// is updated, the instance recreated and its disk unavailable while the resource is replaced. A
// deploy whose manifests remove an object drains too. slipway recreate drains, then the app's
// object is deleted and created again in the real kube-apiserver (a new UID); bad input exits 2.
func TestDrainRunsBeforeADeployThatReplaces(t *testing.T) {
	t.Setenv("SLIPWAY_HOOK_SANDBOX", "none") // the script logs to this test's file
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	logFile := t.TempDir() + "/drain.log"
	testsuite.PushFiles(t, e.GitOpsRepo, "a stateful stack with a drain hook", guardedStack("replacer",
		"approval: never\nstateful: [terraform_data.app]\nhooks:\n  drain: {exec: hooks/drain.sh, deadline: 1m}\n",
		map[string]string{"hooks/drain.sh": strings.Replace(replaceDrainScript, "LOGFILE", logFile, 1),
			"manifests/extra.yaml.tmpl": extraManifest}))
	const ref = "acme/web"
	file := func(greeting, generation string) string {
		return writeFile(t, "stack: replacer\nparameters:\n  greeting: "+greeting+"\n  generation: "+generation+"\n")
	}
	e.MustCLI(0, "create", ref, "-f", file("hello", "1"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")                        // adds only
	e.MustCLI(0, "deploy", ref, "-f", file("hi", "1"), "--wait") // changes in place
	require.NoFileExists(t, logFile, "no deploy so far replaced or deleted anything: no drain")
	require.NotContains(t, stepNames(e.Status(ref)), contract.DrainHook)

	// Generation 2 replaces terraform_data.app: a platform approval (stateful), then the drain, then the apply.
	as(t, "alice:tenant:acme", func() { e.MustCLI(0, "deploy", ref, "-f", file("hi", "2")) })
	var w *contract.ApprovalWait
	require.Eventually(t, func() bool {
		as(t, "carol:platform-admins", func() { w = e.Status(ref).Approval })
		return w != nil && w.Hash != ""
	}, time.Minute, 100*time.Millisecond)
	require.NoFileExists(t, logFile, "nothing drains before the plan is approved")
	as(t, "carol:platform-admins", func() { e.MustCLI(0, "approve", ref, "--plan", w.Hash) })
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded
	}, 2*time.Minute, 100*time.Millisecond)
	t.Logf("stateful replace: drain-hook step %s before tf-apply %s", stepTook(t, e.Status(ref), contract.DrainHook), stepTook(t, e.Status(ref), contract.TFApply))
	lines := drainLog(t, logFile)
	require.Len(t, lines, 1)
	cur, next := lines[0].cur, lines[0].next
	require.Equal(t, map[string]any{"state": "Deployed", "app": "running", "data": "available", "operation": "deploy",
		"reason": cur["reason"], "deployment": "updated", "instance": "running", "disk": "attached"}, cur)
	require.Equal(t, map[string]any{"state": "Deployed", "app": "running", "data": "available", "operation": "deploy",
		"reason": next["reason"], "deployment": "updated", "instance": "recreated", "disk": "unavailable",
		"replaced": []any{"terraform_data.app"}}, next)
	names := stepNames(e.Status(ref))
	require.Less(t, slices.Index(names, contract.Approval), slices.Index(names, contract.DrainHook), names)
	require.Less(t, slices.Index(names, contract.DrainHook), slices.Index(names, contract.TFApply), "drained before the apply: %v", names)
	require.Equal(t, "hi", configMap(t, stack, e.Status(ref).Names.Namespace)["greeting"])
	ns := e.Status(ref).Names.Namespace

	// The manifests alone: a deploy that adds an object does not drain; one that removes it does.
	extra := "stack: replacer\nparameters:\n  greeting: hi\n  generation: 2\n  mode: extra\n"
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, extra), "--wait")
	require.Len(t, drainLog(t, logFile), 1, "an added object drains nothing")
	require.Equal(t, http.StatusOK, get(t, stack, "/api/v1/namespaces/"+ns+"/configmaps/extra"))
	e.MustCLI(0, "deploy", ref, "-f", file("hi", "2"), "--wait")
	lines = drainLog(t, logFile)
	require.Len(t, lines, 2, "a removed object drains first")
	require.Equal(t, "recreated", lines[1].next["instance"])
	require.Equal(t, "attached", lines[1].next["disk"])
	require.Equal(t, []any{"ConfigMap/extra"}, lines[1].next["replaced"])
	require.Eventually(t, func() bool { return get(t, stack, "/api/v1/namespaces/"+ns+"/configmaps/extra") == http.StatusNotFound },
		time.Minute, 200*time.Millisecond)
	uid := objectUID(t, stack, "/api/v1/namespaces/"+ns+"/configmaps/app")

	// recreate: the drain (instance recreated, disk attached: nothing stateful is replaced), then
	// the app's objects deleted and created again in the real kube-apiserver, as they were.
	start := time.Now()
	e.MustCLI(0, "recreate", ref, "--wait")
	t.Logf("recreate (drain, then every app object deleted and created again): %s; drain-hook step %s, deploy-app step %s",
		time.Since(start).Round(time.Millisecond), stepTook(t, e.Status(ref), contract.DrainHook), stepTook(t, e.Status(ref), contract.DeployApp))
	lines = drainLog(t, logFile)
	require.Len(t, lines, 3)
	require.Equal(t, map[string]any{"state": "Deployed", "app": "running", "data": "available", "operation": "deploy",
		"reason": lines[2].next["reason"], "deployment": "updated", "instance": "recreated", "disk": "attached"}, lines[2].next)
	st := e.Status(ref)
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, lifecycle.OpDeploy, st.Operation.Kind, "a recreate is a deploy, to the policy and in the record")
	require.Contains(t, step(t, st, contract.DeployApp).Detail, "recreated: Synced Healthy")
	names = stepNames(st)
	require.Less(t, slices.Index(names, contract.DrainHook), slices.Index(names, contract.DeployApp), "drained, then recreated: %v", names)
	require.NotEqual(t, uid, objectUID(t, stack, "/api/v1/namespaces/"+ns+"/configmaps/app"), "a new object: deleted and created again")
	require.Equal(t, "hi", configMap(t, stack, ns)["greeting"], "as it was")

	// Bad input changes nothing and exits 2: an unknown instance, one that is not Deployed.
	r := e.MustCLI(2, "recreate", "acme/nope")
	require.Contains(t, r.Stderr, "acme/nope")
	e.MustCLI(0, "create", "acme/idle", "-f", file("hello", "1"), "--wait")
	r = e.MustCLI(2, "recreate", "acme/idle")
	require.Contains(t, r.Stderr, "recreate replaces a Deployed instance's workload")
	require.Equal(t, lifecycle.ConfigurationCreated, e.Status("acme/idle").State)
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "acme", Name: "web"}), "drain-before-replace")
}

// stepNames lists the current operation's steps in order.
func stepNames(st contract.Status) []string {
	var out []string
	for _, s := range st.Operation.Steps {
		out = append(out, s.Name)
	}
	return out
}

func objectUID(t *testing.T, s *cluster.Stack, path string) string {
	t.Helper()
	uid, _ := object(t, s, path)["metadata"].(map[string]any)["uid"].(string)
	require.NotEmpty(t, uid, path)
	return uid
}
