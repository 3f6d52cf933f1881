package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
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

// A stack's argocd: block puts its instances' Applications in the operator's project at the
// destination it names; slipway makes no tenant project for them and changes the operator's
// none. A destination the project does not allow, or a project ArgoCD lacks, is refused naming
// the stack's field, before the namespace or anything else exists on the cluster.
func TestArgoCDStackNamesProjectAndDestination(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	project := map[string]any{"project": map[string]any{
		"metadata": map[string]any{"name": "platform-apps", "labels": map[string]string{"team": "platform"}},
		"spec": map[string]any{"sourceRepos": []string{"*"},
			"destinations": []map[string]string{{"server": argocd.DefaultDestination, "namespace": "placed-*"}}}}}
	code, body := stack.Argo(t, http.MethodPost, "/api/v1/projects", project)
	require.Equal(t, http.StatusOK, code, string(body))
	before := projectJSON(t, stack, "platform-apps")

	pushPlacedStack(t, e, "placed", "argocd:\n  project: platform-apps\n  destination:\n    name: in-cluster\n")
	pushPlacedStack(t, e, "offlimits", "argocd:\n  project: platform-apps\n  destination:\n    server: "+argocd.DefaultDestination+"\n")
	pushPlacedStack(t, e, "ghost", "argocd:\n  project: ghost-apps\n")

	e.MustCLI(0, "create", "placed/web", "-f", writeFile(t, "stack: placed\nparameters:\n  greeting: hello\n  replicas: 2\n"), "--wait")
	e.MustCLI(0, "deploy", "placed/web", "--wait")
	app := argoApp(t, stack, "placed-web")
	require.Equal(t, "platform-apps", app.Spec.Project)
	require.Equal(t, argocd.ApplicationDestination{Name: "in-cluster", Namespace: "placed-web"}, app.Spec.Destination)
	require.Equal(t, "2", configMap(t, stack, "placed-web")["replicas"], "ArgoCD synced it there")
	code, _ = stack.Argo(t, http.MethodGet, "/api/v1/projects/slipway-placed", nil)
	require.Equal(t, http.StatusNotFound, code, "no tenant project for a stack that names its own")
	require.JSONEq(t, before, projectJSON(t, stack, "platform-apps"), "the operator's project is as the operator left it")

	for _, tc := range []struct{ ref, stack, want string }{
		{"other/web", "offlimits", `argocd: invalid schema.argocd.destination: project platform-apps does not allow server https://kubernetes.default.svc namespace other-web`},
		{"spooky/web", "ghost", `argocd: invalid schema.argocd.project: ArgoCD has no project "ghost-apps"`},
	} {
		e.MustCLI(0, "create", tc.ref, "-f", writeFile(t, "stack: "+tc.stack+"\nparameters:\n  greeting: hello\n"), "--wait")
		out := e.MustCLI(1, "deploy", tc.ref, "--wait")
		require.Contains(t, out.Stdout, tc.ref+" is DeploymentFailed")
		st := e.Status(tc.ref)
		require.Contains(t, st.Failure.Error, tc.want)
		ns := strings.ReplaceAll(tc.ref, "/", "-")
		code, body := stack.Argo(t, http.MethodGet, "/api/v1/applications?name="+ns, nil)
		require.Equal(t, http.StatusOK, code)
		require.NotContains(t, string(body), `"name":"`+ns+`"`, "no Application was made")
		require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/"+ns), "nor the namespace")
	}

	e.MustCLI(0, "deprovision", "placed/web", "--yes", "--wait")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/placed-web"))
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/placed-web"))
	require.JSONEq(t, before, projectJSON(t, stack, "platform-apps"), "the operator's project is still as it was")
}

// pushPlacedStack adds the example stack under another name, its schema extended by extra.
func pushPlacedStack(t *testing.T, e *testsuite.Env, name, extra string) {
	t.Helper()
	files := map[string][]byte{}
	for _, p := range []string{"schema.yaml", "terraform/main.tf.tmpl", "manifests/app.yaml.tmpl"} {
		data, err := os.ReadFile("../../examples/stacks/example/" + p)
		require.NoError(t, err)
		files["stacks/"+name+"/"+p] = data
	}
	files["stacks/"+name+"/schema.yaml"] = append(files["stacks/"+name+"/schema.yaml"], "\n"+extra...)
	testsuite.PushFiles(t, e.GitOpsRepo, "add stack "+name, files)
}

// A stack whose argocd: block is bad is refused at create with exit 2, naming the field, and
// nothing reaches the repository.
func TestArgoCDStackBlockIsCheckedAtCreate(t *testing.T) {
	e := testsuite.NewEnv(t)
	for _, tc := range []struct{ stack, block, want string }{
		{"wideopen", "argocd:\n  project: default\n", "schema.argocd.project: must not be ArgoCD's default project"},
		{"neighbour", "argocd:\n  project: slipway-acme\n", `schema.argocd.project: "slipway-acme" is a tenant project slipway makes`},
		{"templated", "argocd:\n  destination:\n    name: in-cluster\n    namespace: '{{ .Tenant }}-apps'\n", "schema.argocd.destination.namespace: is not supported"},
		{"twice", "argocd:\n  destination:\n    name: in-cluster\n    server: https://kubernetes.default.svc\n", "schema.argocd.destination: set server or name, not both"},
	} {
		stack, extra, want := tc.stack, tc.block, tc.want
		pushPlacedStack(t, e, stack, extra)
		r := e.MustCLI(2, "create", "bad/"+stack, "-f", writeFile(t, "stack: "+stack+"\nparameters:\n  greeting: hello\n"))
		require.Contains(t, r.Stderr, want, stack)
		require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/bad/"+stack), "nothing reached the repo")
	}
}

// A stack that starts naming a project moves its deployed instances there on their next deploy,
// and their namespaces leave the tenant's project.
func TestArgoCDStackMovesItsAppsToTheNamedProject(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	project := map[string]any{"project": map[string]any{
		"metadata": map[string]any{"name": "platform-apps"},
		"spec": map[string]any{"sourceRepos": []string{"*"},
			"destinations": []map[string]string{{"server": argocd.DefaultDestination, "namespace": "moving-*"}}}}}
	code, body := stack.Argo(t, http.MethodPost, "/api/v1/projects", project)
	require.Equal(t, http.StatusOK, code, string(body))

	pushPlacedStack(t, e, "mover", "")
	e.MustCLI(0, "create", "moving/web", "-f", writeFile(t, "stack: mover\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "moving/web", "--wait")
	require.Equal(t, "slipway-moving", argoApp(t, stack, "moving-web").Spec.Project)
	require.Contains(t, argoProject(t, stack, "slipway-moving").Spec.Destinations,
		argocd.ApplicationDestination{Server: argocd.DefaultDestination, Namespace: "moving-web"})

	pushPlacedStack(t, e, "mover", "argocd:\n  project: platform-apps\n  destination:\n    server: "+argocd.DefaultDestination+"\n")
	e.MustCLI(0, "deploy", "moving/web", "--wait")
	require.Equal(t, "platform-apps", argoApp(t, stack, "moving-web").Spec.Project)
	require.Empty(t, argoProject(t, stack, "slipway-moving").Spec.Destinations, "the namespace left the tenant's project")
	require.Equal(t, "1", configMap(t, stack, "moving-web")["replicas"])
}

// A stack that names only a destination keeps its instances in their tenant's own project:
// slipway lists exactly each instance's namespace on that cluster there, another tenant's
// project never gets it, a destination the app leaves is taken out, and so is the last at deprovision.
func TestArgoCDStackDestinationInTheTenantsProject(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	pushPlacedStack(t, e, "named", "argocd:\n  destination:\n    name: in-cluster\n")
	e.MustCLI(0, "create", "north/web", "-f", writeFile(t, "stack: named\nparameters:\n  greeting: hello\n  replicas: 2\n"), "--wait")
	e.MustCLI(0, "create", "south/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "north/web", "--wait")
	e.MustCLI(0, "deploy", "south/web", "--wait")

	app := argoApp(t, stack, "north-web")
	require.Equal(t, "slipway-north", app.Spec.Project)
	require.Equal(t, argocd.ApplicationDestination{Name: "in-cluster", Namespace: "north-web"}, app.Spec.Destination)
	require.Equal(t, "2", configMap(t, stack, "north-web")["replicas"], "ArgoCD synced it there")
	require.Equal(t, []argocd.ApplicationDestination{{Name: "in-cluster", Namespace: "north-web"}},
		argoProject(t, stack, "slipway-north").Spec.Destinations, "the tenant's project allows its instance's namespace only")
	require.Equal(t, []argocd.ApplicationDestination{{Server: argocd.DefaultDestination, Namespace: "south-web"}},
		argoProject(t, stack, "slipway-south").Spec.Destinations, "and the other tenant's its own")

	// The stack names the cluster by its server instead: the project allows that one only.
	pushPlacedStack(t, e, "named", "argocd:\n  destination:\n    server: "+argocd.DefaultDestination+"\n")
	e.MustCLI(0, "deploy", "north/web", "--wait")
	want := argocd.ApplicationDestination{Server: argocd.DefaultDestination, Namespace: "north-web"}
	require.Equal(t, want, argoApp(t, stack, "north-web").Spec.Destination)
	require.Equal(t, []argocd.ApplicationDestination{want}, argoProject(t, stack, "slipway-north").Spec.Destinations,
		"the destination the app left is no longer allowed")

	e.MustCLI(0, "deprovision", "north/web", "--yes", "--wait")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/north-web"))
	require.Empty(t, argoProject(t, stack, "slipway-north").Spec.Destinations, "deprovision took the namespace out of the project")
	require.Len(t, argoProject(t, stack, "slipway-south").Spec.Destinations, 1)
}
