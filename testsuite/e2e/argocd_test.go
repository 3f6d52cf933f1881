package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// The lifecycle through real ArgoCD on a real kube-apiserver: the namespace and the Secret of
// the bootstrapped secrets (both made by the deployer) and the manifests (a ConfigMap) really
// land, change, go away with archive and come back, and deprovision removes everything.
func TestArgoCDLifecycle(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	ns := "argo-web"
	v1 := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n")
	v2 := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 3\n")
	e.MustCLI(0, "create", "argo/web", "-f", v1, "--wait")

	start := time.Now()
	e.MustCLI(0, "deploy", "argo/web", "--wait")
	t.Logf("first deploy to Synced+Healthy: %s", time.Since(start).Round(time.Millisecond))
	st := e.Status("argo/web")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, "argocd", st.Deployer)
	require.Equal(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady), "%+v", st.Conditions)
	require.Equal(t, map[string]int{"Applied": 1}, st.RsyncStatus, "the ConfigMap applied by ArgoCD")
	require.Equal(t, map[string]int{"Present": 1}, st.ClusterStatus)
	require.Equal(t, "1", configMap(t, stack, ns)["replicas"])
	secrets, err := e.Activities.Secrets.Get(t.Context(), "argo", "web")
	require.NoError(t, err)
	require.Equal(t, secrets["admin_password"], secretData(t, stack, ns)["admin_password"], "the Secret carries the bootstrapped value")

	start = time.Now()
	e.MustCLI(0, "deploy", "argo/web", "-f", v2, "--wait")
	t.Logf("update to Synced+Healthy: %s", time.Since(start).Round(time.Millisecond))
	require.Equal(t, "3", configMap(t, stack, ns)["replicas"])

	e.MustCLI(0, "archive", "argo/web", "--wait")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/"+ns), "archive removes the namespace")
	require.NotEmpty(t, e.Resources(contract.Ref{Tenant: "argo", Name: "web"}), "archive keeps the infrastructure")
	require.NotEmpty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/argo/web/instance.yaml"), "and the config")

	e.MustCLI(0, "deploy", "argo/web", "--wait")
	require.Equal(t, "3", configMap(t, stack, ns)["replicas"], "deploy brings it back")

	e.MustCLI(0, "deprovision", "argo/web", "--yes", "--wait")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/"+ns))
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/argo-web"))
	require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/argo/web"))
	var values []string
	for _, v := range secrets {
		values = append(values, v)
	}
	require.Empty(t, e.SecretLeaks(t, values))
}

const badAppManifest = `apiVersion: v1
kind: ConfigMap
metadata:
  name: Not_A_Valid_Name
  namespace: {{ .Namespace }}
data:
  x: "y"
`

// A manifest the API server refuses fails the deploy within the deadline, with
// ArgoCD's message in the failure and the half-synced app in the leftovers.
func TestArgoCDSyncFailureIsRecorded(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	schema, err := os.ReadFile("../../examples/stacks/example/schema.yaml")
	require.NoError(t, err)
	tf, err := os.ReadFile("../../examples/stacks/example/terraform/main.tf.tmpl")
	require.NoError(t, err)
	testsuite.PushFiles(t, e.GitOpsRepo, "add a stack whose manifest the API server refuses", map[string][]byte{
		"stacks/badapp/schema.yaml":             schema,
		"stacks/badapp/terraform/main.tf.tmpl":  tf,
		"stacks/badapp/manifests/app.yaml.tmpl": []byte(badAppManifest),
	})
	file := writeFile(t, "stack: badapp\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "argo/bad", "-f", file, "--wait")
	out := e.MustCLI(1, "deploy", "argo/bad", "--timeout", "90s", "--wait")
	require.Contains(t, out.Stdout, "argo/bad is DeploymentFailed")
	st := e.Status("argo/bad")
	require.Equal(t, contract.DeployApp, st.Failure.Step)
	require.Contains(t, st.Failure.Error, "Not_A_Valid_Name")
	var app *contract.Leftover
	for i := range st.Failure.Leftovers {
		if st.Failure.Leftovers[i].Kind == "app" {
			app = &st.Failure.Leftovers[i]
		}
	}
	require.NotNil(t, app, "leftovers: %+v", st.Failure.Leftovers)
	require.Contains(t, app.Detail, "argocd app")
	require.Contains(t, app.Detail, "Not_A_Valid_Name", "ArgoCD's own message is in the leftover")
	t.Logf("failure: %s\nleftover: %s", st.Failure.Error, app.Detail)
}

func condition(cs []lifecycle.Condition, typ string) lifecycle.ConditionStatus {
	for _, c := range cs {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

func get(t *testing.T, s *cluster.Stack, path string) int {
	code, _ := s.Get(t, path)
	return code
}

func object(t *testing.T, s *cluster.Stack, path string) map[string]any {
	code, body := s.Get(t, path)
	require.Equal(t, http.StatusOK, code, "%s: %s", path, body)
	var m map[string]any
	require.NoError(t, json.Unmarshal(body, &m))
	return m
}

func configMap(t *testing.T, s *cluster.Stack, ns string) map[string]string {
	data := object(t, s, fmt.Sprintf("/api/v1/namespaces/%s/configmaps/app", ns))["data"].(map[string]any)
	out := map[string]string{}
	for k, v := range data {
		out[k] = fmt.Sprint(v)
	}
	return out
}

func secretData(t *testing.T, s *cluster.Stack, ns string) map[string]string {
	data := object(t, s, fmt.Sprintf("/api/v1/namespaces/%s/secrets/%s", ns, argocd.SecretName))["data"].(map[string]any)
	out := map[string]string{}
	for k, v := range data {
		out[k] = decodeB64(t, fmt.Sprint(v))
	}
	return out
}

func decodeB64(t *testing.T, s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	require.NoError(t, err)
	return string(b)
}
