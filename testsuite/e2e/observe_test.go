package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// observeInterval is short so the test sees three intervals pass in seconds.
const observeInterval = 2 * time.Second

// A stack whose one workload can be scaled out of band: with no scheduler here its pod stays
// Pending, the rollout passes its progress deadline, and ArgoCD reports the app Degraded.
var workloadStack = map[string][]byte{
	"stacks/workload/schema.yaml": []byte("description: one Deployment, for the observer test\nparameters:\n" +
		"  - name: greeting\n    type: string\n    default: hello\n"),
	"stacks/workload/terraform/main.tf.tmpl":  []byte("resource \"terraform_data\" \"app\" {\n  input = {{ quote .Name }}\n}\n"),
	"stacks/workload/manifests/app.yaml.tmpl": []byte(workloadManifest),
}

// workloadManifest is a Deployment of no replicas (Healthy with no scheduler) that goes Degraded
// two seconds after someone scales it: its pod can never start.
const workloadManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: {{ .Namespace }}
spec:
  replicas: 0
  progressDeadlineSeconds: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: registry.invalid/web:1
`

// What an operator sees is what is there: the observer notices an Application deleted out of
// band, a workload gone Degraded, and a change made while its worker was down; a deploy
// makes the instance Ready again.
func TestObserverReportsTheClusterAsItIs(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
		o.ObserveInterval = observeInterval
		o.NoWorker = true // the test runs the worker, so it can lose it
	})
	w := startWorker(t, e)
	testsuite.PushFiles(t, e.GitOpsRepo, "add the workload stack", workloadStack)
	e.MustCLI(0, "create", "obs/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "obs/web", "--wait")
	st := e.Status("obs/web")
	require.Equal(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady))
	require.NotNil(t, st.Observed)
	require.Equal(t, e.Observer, st.Observed.Observer, "the deploy names the observer that watches it")

	t.Run("application deleted out of band", func(t *testing.T) {
		deleted := time.Now()
		code, body := stack.Kube(t, http.MethodDelete, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/obs-web", "", nil)
		require.Equal(t, http.StatusOK, code, string(body))
		st := waitCondition(t, e, "obs/web", lifecycle.CondRunning, "False/Missing", 3*observeInterval+30*time.Second)
		t.Logf("deletion to Running=False (Missing) in status: %s", time.Since(deleted).Round(time.Millisecond))
		require.Equal(t, lifecycle.ConditionFalse, condition(st.Conditions, lifecycle.CondReady))
		require.Equal(t, lifecycle.Deployed, st.State, "observation never changes the lifecycle state")
		require.Equal(t, map[string]int{"NotPresent": 1}, st.ClusterStatus, "the ConfigMap (the deployer owns the namespace and the Secret)")
		require.True(t, st.ObservedAt.After(deleted), "observedAt %s is after the deletion at %s", st.ObservedAt, deleted)
		require.NotEmpty(t, st.Observations)
		out := e.MustCLI(0, "status", "obs/web").Stdout
		require.Contains(t, out, "condition Running=False Missing")
		require.Contains(t, out, "condition Ready=False")
		require.Contains(t, out, "observedAt: ")
		requireListed(t, e, "False", "obs/web")

		e.MustCLI(0, "deploy", "obs/web", "--wait")
		out = e.MustCLI(0, "status", "obs/web", "--refresh").Stdout
		require.Contains(t, out, "refresh: observed True/Healthy")
		require.Contains(t, out, "condition Ready=True")
		requireListed(t, e, "True", "obs/web")
	})

	t.Run("workload degraded", func(t *testing.T) {
		t.Cleanup(func() {
			if t.Failed() {
				_, dep := stack.Kube(t, http.MethodGet, "/apis/apps/v1/namespaces/obs-load/deployments/web", "", nil)
				_, app := stack.Argo(t, http.MethodGet, "/api/v1/applications/obs-load", nil)
				t.Logf("deployment: %s\napplication: %s", dep, app)
			}
		})
		e.MustCLI(0, "create", "obs/load", "-f", writeFile(t, "stack: workload\n"), "--wait")
		e.MustCLI(0, "deploy", "obs/load", "--wait")
		require.Equal(t, lifecycle.ConditionTrue, condition(e.Status("obs/load").Conditions, lifecycle.CondReady))
		// Scaled up and restarted out of band (kubectl scale + rollout restart): a new rollout that
		// can never finish. Scaling alone is no rollout and would stay Progressing, not Degraded.
		code, body := stack.Kube(t, http.MethodPatch, "/apis/apps/v1/namespaces/obs-load/deployments/web",
			"application/merge-patch+json", []byte(`{"spec":{"replicas":1,"template":{"metadata":{"annotations":`+
				`{"kubectl.kubernetes.io/restartedAt":"`+time.Now().UTC().Format(time.RFC3339)+`"}}}}}`))
		require.Equal(t, http.StatusOK, code, string(body))
		st := waitCondition(t, e, "obs/load", lifecycle.CondRunning, "False/Degraded", 2*time.Minute)
		require.Equal(t, lifecycle.ConditionFalse, condition(st.Conditions, lifecycle.CondReady))
		require.Equal(t, lifecycle.Deployed, st.State)
		var detail contract.Status
		require.NoError(t, json.Unmarshal([]byte(e.MustCLI(0, "status", "obs/load", "-o", "detail", "--json").Stdout), &detail))
		kinds := map[string]string{}
		for _, r := range detail.Resources[0].Clusters[0].Resources {
			kinds[r.GVK.Kind] = r.ClusterStatus + "/" + r.Health
		}
		require.Equal(t, map[string]string{"Deployment": "Present/Degraded"}, kinds,
			"degraded, not gone: the live resource tree says which one")
	})

	t.Run("worker lost mid-interval", func(t *testing.T) {
		w.Stop() // whatever sweep was in flight is lost with it
		deleted := time.Now()
		code, body := stack.Kube(t, http.MethodDelete, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/obs-web", "", nil)
		require.Equal(t, http.StatusOK, code, string(body))
		time.Sleep(2 * observeInterval) // nobody observes: no worker
		startWorker(t, e)
		st := waitCondition(t, e, "obs/web", lifecycle.CondRunning, "False/Missing", 3*observeInterval+30*time.Second)
		require.True(t, st.ObservedAt.After(deleted))
	})
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "obs", Name: "web"}), "observe")
	testsuite.RecordHistories(t, e.Client.Temporal, e.Observer, "observer")
}

// startWorker runs a worker for the env, as a host does at start (it also reaches the observer).
func startWorker(t *testing.T, e *testsuite.Env) worker.Worker {
	t.Helper()
	w := worker.New(e.Client.Temporal, e.TaskQueue, worker.Options{Interceptors: e.Interceptors})
	require.NoError(t, workerapp.Register(w, e.Activities))
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	id, err := workerapp.StartObserver(context.Background(), e.Client.Temporal, e.TaskQueue, e.Activities, observeInterval)
	require.NoError(t, err)
	e.Observer = id
	return w
}

// waitCondition polls status until the condition reads want ("Status/Reason") or the bound passes.
func waitCondition(t *testing.T, e *testsuite.Env, ref, typ, want string, bound time.Duration) contract.Status {
	t.Helper()
	deadline := time.Now().Add(bound)
	var last contract.Status
	for time.Now().Before(deadline) {
		last = e.Status(ref)
		for _, c := range last.Conditions {
			if c.Type == typ && string(c.Status)+"/"+c.Reason == want {
				return last
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("%s: %s never became %s within %s; conditions %+v", ref, typ, want, bound, last.Conditions)
	return last
}

// requireListed checks that `list --ready` (the UI's InstanceReady query) finds the instance.
func requireListed(t *testing.T, e *testsuite.Env, ready, ref string) {
	t.Helper()
	require.Eventually(t, func() bool {
		return strings.Contains(e.MustCLI(0, "list", "--ready", ready).Stdout, ref)
	}, 10*time.Second, 200*time.Millisecond, "list --ready %s", ready)
}
