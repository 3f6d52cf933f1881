package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/devstack/argostack"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// hookedManifest holds its sync Running: the PreSync Job's pod is never scheduled (this cluster
// has no scheduler or nodes), so ArgoCD waits for the hook and never applies the ConfigMap.
const hookedManifest = brokenManifest + `---
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Name }}-migrate
  namespace: {{ .Namespace }}
  annotations:
    argocd.argoproj.io/hook: PreSync
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: registry.invalid/migrate:1
`

// slipway cancel during the deploy-app step stops the ArgoCD sync in flight, on the real ArgoCD:
// the operation is terminated (nothing keeps applying after the step ended), the instance is
// DeploymentFailed with a `cancelled` leftover at deploy-app, and a destroy removes the app.
func TestCancelTerminatesARunningArgoCDSync(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	testsuite.PushFiles(t, e.GitOpsRepo, "add the hooked stack", map[string][]byte{
		"stacks/hooked/schema.yaml":             []byte(brokenSchema),
		"stacks/hooked/terraform/main.tf.tmpl":  []byte(fixedTF),
		"stacks/hooked/manifests/app.yaml.tmpl": []byte(hookedManifest),
	})
	ref := "hook/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: hooked\nparameters:\n  greeting: hello\n"), "--wait")
	done := make(chan testsuite.Result, 1)
	go func() { done <- e.CLI("deploy", ref, "--wait") }()
	t.Cleanup(func() { <-done })

	var app string
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		if st.Operation == nil || st.Operation.Result != contract.ResultRunning || st.Operation.Step != contract.DeployApp {
			return false
		}
		app = st.Names.Application
		// Not argoApp: it asserts the app exists, and a failed assertion here would not end the wait.
		code, body := stack.Argo(t, http.MethodGet, "/api/v1/applications/"+app, nil)
		var a argocd.Application
		return code == http.StatusOK && json.Unmarshal(body, &a) == nil &&
			a.Status.OperationState != nil && a.Status.OperationState.Phase == "Running"
	}, 3*time.Minute, 200*time.Millisecond, "the sync never started running")
	time.Sleep(2 * time.Second) // ArgoCD is waiting for the hook, not about to finish
	require.Equal(t, "Running", argoApp(t, stack, app).Status.OperationState.Phase, "the hook holds the sync")

	out := e.MustCLI(0, "cancel", ref, "--reason", "hook stuck")
	require.Contains(t, out.Stdout, ref+": stopping deploy")
	var st contract.Status
	require.Eventually(t, func() bool {
		st = e.Status(ref)
		return st.State == lifecycle.DeploymentFailed
	}, 2*time.Minute, 200*time.Millisecond, "state %s", st.State)
	require.NotNil(t, st.Failure)
	require.Equal(t, contract.DeployApp, st.Failure.Step)
	require.Equal(t, contract.ErrCancelled, st.Failure.Type, "%+v", st.Failure)
	var where *contract.Leftover
	for i, l := range st.Failure.Leftovers {
		if l.Kind == contract.LeftoverCancelled {
			where = &st.Failure.Leftovers[i]
		}
	}
	require.NotNil(t, where, "leftovers: %+v", st.Failure.Leftovers)
	require.Equal(t, contract.DeployApp, where.ID)

	var phase, message string
	require.Eventually(t, func() bool {
		op := argoApp(t, stack, app).Status.OperationState
		phase, message = op.Phase, op.Message
		return phase != "Running" && phase != "Terminating"
	}, time.Minute, 200*time.Millisecond, "ArgoCD's operation still %s", phase)
	require.Equal(t, "Failed", phase)
	require.Contains(t, message, "terminated", "slipway terminated the sync it started")
	ns := st.Names.Namespace
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/"+ns+"/configmaps/web"),
		"the sync stopped at its hook: nothing after it was applied")

	e.MustCLI(0, "destroy", ref, "--wait")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/"+argostack.ArgoNamespace+"/applications/"+app))
	require.Equal(t, lifecycle.Destroyed, e.Status(ref).State)
}
