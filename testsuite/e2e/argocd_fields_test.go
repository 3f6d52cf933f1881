package e2e

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devenv"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// What an operator sets by hand on an instance's Application (an annotation, ignoreDifferences,
// a sync option, a label) is still there after the next deploys, which change only what slipway
// owns: the revision moves and the new manifests land.
func TestArgoCDDeployKeepsWhatTheOperatorSet(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	v1 := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n")
	v2 := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 3\n")
	e.MustCLI(0, "create", "keep/web", "-f", v1, "--wait")
	e.MustCLI(0, "deploy", "keep/web", "--wait")
	first := argoApp(t, stack, "keep-web").Spec.Source.TargetRevision

	// The operator's edit, as `kubectl edit` would make it: a merge patch on the Application.
	patch := `{"metadata": {"annotations": {"notifications.argoproj.io/subscribe.on-sync-failed.slack": "ops"},
	    "labels": {"team": "platform"}},
	  "spec": {"ignoreDifferences": [{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}],
	    "syncPolicy": {"syncOptions": ["PruneLast=true"]}}}`
	code, body := stack.Kube(t, http.MethodPatch, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/keep-web",
		"application/merge-patch+json", []byte(patch))
	require.Equal(t, http.StatusOK, code, string(body))

	e.MustCLI(0, "deploy", "keep/web", "-f", v2, "--wait")
	require.Equal(t, "3", configMap(t, stack, "keep-web")["replicas"], "the update landed")
	e.MustCLI(0, "deploy", "keep/web", "--wait")

	app := rawApp(t, stack, "keep-web")
	meta, spec := app["metadata"].(map[string]any), app["spec"].(map[string]any)
	require.Equal(t, "ops", meta["annotations"].(map[string]any)["notifications.argoproj.io/subscribe.on-sync-failed.slack"], "%v", meta)
	labels := meta["labels"].(map[string]any)
	require.Equal(t, "platform", labels["team"])
	require.Equal(t, "keep", labels["slipway.dev/tenant"], "slipway's own labels are set beside it")
	require.JSONEq(t, `[{"group": "apps", "kind": "Deployment", "jsonPointers": ["/spec/replicas"]}]`, jsonOf(t, spec["ignoreDifferences"]))
	require.JSONEq(t, `{"syncOptions": ["PruneLast=true"]}`, jsonOf(t, spec["syncPolicy"]))
	src := spec["source"].(map[string]any)
	require.NotEqual(t, first, src["targetRevision"], "slipway's fields moved on")
	require.Equal(t, "slipway-keep", spec["project"])
}

// rawApp reads an Application from the kube API as it is stored, every field included.
func rawApp(t *testing.T, s *cluster.Stack, name string) map[string]any {
	t.Helper()
	return object(t, s, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/"+name)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
