package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	slipclient "github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/nameclaim"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// Case 8: a ref that derives a system namespace, or one the operator reserved, is refused at
// create with exit 2 naming the ref, before anything changes; through the workflow too, for a
// request that skips the CLI (a webhook's).
func TestCreateRefusesReservedNames(t *testing.T) {
	t.Setenv(names.EnvReserved, "monitoring, prod-*")
	e := testsuite.NewEnv(t)
	reserved, err := names.ReservedFromEnv(func(string) string { return "monitoring, prod-*" })
	require.NoError(t, err)
	e.Activities.Reserved = reserved // the worker's SLIPWAY_RESERVED_NAMES
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")

	for ref, want := range map[string]string{
		"kube/system":   "TENANT/NAME kube/system: kubernetes namespace kube-system is reserved (kube-*)",
		"default/x":     "TENANT/NAME default/x: tenant default is reserved (default)",
		"argocd/apps":   "TENANT/NAME argocd/apps: tenant argocd is reserved (argocd)",
		"slipway/ui":    "TENANT/NAME slipway/ui: tenant slipway is reserved (slipway)",
		"monitoring/gr": "TENANT/NAME monitoring/gr: tenant monitoring is reserved (monitoring)",
		"prod/db":       "TENANT/NAME prod/db: kubernetes namespace prod-db is reserved (prod-*)",
	} {
		for _, args := range [][]string{{"create", ref, "-f", file}, {"create", ref, "-f", file, "--wait"}} {
			r := e.MustCLI(2, args...)
			require.Contains(t, r.Stderr, want, ref)
		}
	}
	// The workflow's own check, which holds for a request that never passed the CLI.
	ref := contract.Ref{Tenant: "kube", Name: "system"}
	h, err := e.Client.Submit(t.Context(), ref, lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: "stack: example\nparameters:\n  greeting: hello\n"}, "")
	if err == nil {
		_, err = h.Get(t.Context())
	}
	var rejected *slipclient.RejectedError
	require.True(t, errors.As(err, &rejected), "got %v", err)
	require.Contains(t, rejected.Message, "kubernetes namespace kube-system is reserved (kube-*)")
	require.True(t, slipclient.IsBadRequest(err), "the CLI turns it into exit 2")
	require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "-r", "--name-only", "main", "instances/"), "nothing reached the repo")
	held, running, err := nameclaim.New(e.Client.Temporal, e.TaskQueue).Holder(t.Context(), names.Claim{Kind: names.KindNamespace, Value: "kube-system"})
	require.NoError(t, err)
	require.False(t, running, "no name was claimed (held by %q)", held)

	e.MustCLI(0, "create", "kubex/system", "-f", file, "--wait") // a lookalike that derives nothing reserved
}

// Case 8: an instance provisioned before names were recorded claims its legacy names, so a
// new ref can no longer derive one of them. The legacy rule cut a long "<tenant>-<name>" to
// 54 characters and added "-<8 hex>": the new rule gives exactly that to the ref
// <those 54 characters>/<8 hex>.
func TestALegacyNameCannotBeDerivedByANewRef(t *testing.T) {
	e := testsuite.NewEnv(t)
	ctx := t.Context()
	old := contract.Ref{Tenant: strings.Repeat("l", 60), Name: "web"}
	legacy := names.Legacy(old.Tenant, old.Name)
	prefix, hash, _ := strings.Cut(legacy.Namespace, "-")
	attacker := contract.Ref{Tenant: prefix, Name: hash}
	require.Equal(t, legacy.Namespace, names.Derive(attacker.Tenant, attacker.Name).Namespace, "the collision the old rule left open")

	// The old instance as it was: provisioned, no names recorded.
	state := contract.InstanceState{Ref: old, State: lifecycle.ConfigurationCreated, Started: true, Epoch: "legacy", Seq: 1}
	_, err := e.Client.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: contract.InstanceWorkflowID(old), TaskQueue: e.TaskQueue},
		contract.InstanceWorkflowName, contract.InstanceInput{Ref: old, State: &state})
	require.NoError(t, err)
	reg := nameclaim.New(e.Client.Temporal, e.TaskQueue)
	ns := names.Claim{Kind: names.KindNamespace, Value: legacy.Namespace}
	st := e.Status(old.String())
	require.Equal(t, &legacy, st.Names, "a run records the legacy names")
	_, running, err := reg.Holder(ctx, ns)
	require.NoError(t, err)
	require.False(t, running, "a parked instance claims nothing until its next request, so its history stays short")
	// Its next request claims them, whatever becomes of the operation (this one has no files to plan).
	e.CLI("plan", old.String())
	require.Eventually(t, func() bool {
		h, running, err := reg.Holder(ctx, ns)
		return err == nil && running && h == old.String()
	}, time.Minute, 100*time.Millisecond, "the legacy instance claims its recorded names at its next request")
	require.Equal(t, &legacy, e.Status(old.String()).Names, "and keeps them")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(old), "legacy-names-claimed-v2")

	// The claim refuses the new ref, naming the old instance...
	err = reg.Claim(ctx, attacker.String(), names.Derive(attacker.Tenant, attacker.Name).Claims())
	var taken *names.TakenError
	require.ErrorAs(t, err, &taken)
	require.Equal(t, old.String(), taken.Holder)
	require.Equal(t, ns, taken.Claim)
	// ...and create refuses that shape outright, exit 2, for old instances that have not run since.
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	for _, args := range [][]string{{"create", attacker.String(), "-f", file}, {"create", attacker.String(), "-f", file, "--wait"}} {
		r := e.MustCLI(2, args...)
		require.Contains(t, r.Stderr, "TENANT/NAME "+attacker.String()+": kubernetes namespace "+legacy.Namespace+" is reserved (the shape of a legacy name")
	}
	require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/"+attacker.Tenant), "nothing reached the repo")
}

// Case 8: an Application made by hand under the name an instance derives is never replaced
// by the deploy, nor deleted by an archive: both fail with a leftover naming it, and the
// Application is as it was, in its own project.
func TestArgoCDLeavesAnApplicationItDidNotMakeAlone(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	theirs := map[string]any{
		"metadata": map[string]any{"name": "hand-web", "labels": map[string]string{"team": "platform"}},
		"spec": map[string]any{"project": "default",
			"source":      map[string]any{"repoURL": "https://git.example.invalid/platform.git", "path": "core", "targetRevision": "main"},
			"destination": map[string]any{"server": argocd.DefaultDestination, "namespace": "platform-core"}},
	}
	code, body := stack.Argo(t, http.MethodPost, "/api/v1/applications?validate=false", theirs)
	require.Equal(t, http.StatusOK, code, string(body))
	before := argoApp(t, stack, "hand-web")

	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "hand/web", "-f", file, "--wait")
	out := e.MustCLI(1, "deploy", "hand/web", "--wait")
	require.Contains(t, out.Stdout, "hand/web is DeploymentFailed")
	st := e.Status("hand/web")
	require.Equal(t, contract.DeployApp, st.Failure.Step)
	require.Contains(t, st.Failure.Error, "ArgoCD application hand-web exists and was not created by slipway for hand/web")
	requireForeignLeftover(t, st.Failure.Leftovers)
	requireUntouched(t, stack, before)
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/hand-web"), "refused before the namespace was made")

	// An operator says it is deployed after all; the archive that follows must not delete it.
	e.MustCLI(0, "resolve", "hand/web", "--to", "Deployed", "--reason", "looking at the hand-made app")
	out = e.MustCLI(1, "archive", "hand/web", "--wait")
	require.Contains(t, out.Stdout, "hand/web is ArchiveFailed")
	st = e.Status("hand/web")
	require.Contains(t, st.Failure.Error, "ArgoCD application hand-web exists and was not created by slipway for hand/web")
	requireForeignLeftover(t, st.Failure.Leftovers)
	requireUntouched(t, stack, before)

	// A namespace made by hand under an instance's name is not taken over either.
	stack.Apply(t, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: hand-api\n  labels: {team: platform}\n"))
	e.MustCLI(0, "create", "hand/api", "-f", file, "--wait")
	out = e.MustCLI(1, "deploy", "hand/api", "--wait")
	require.Contains(t, out.Stdout, "hand/api is DeploymentFailed")
	require.Contains(t, e.Status("hand/api").Failure.Error, "kubernetes namespace hand-api exists and was not created by slipway for hand/api")
	ns := object(t, stack, "/api/v1/namespaces/hand-api")["metadata"].(map[string]any)
	require.Equal(t, map[string]any{"team": "platform", "kubernetes.io/metadata.name": "hand-api"}, ns["labels"], "its labels are as they were")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/hand-api/secrets/"+argocd.SecretName), "no secret was put in it")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/hand-api"))
}

// Case 8: each tenant's Applications are in an AppProject slipway made for that tenant,
// whose destinations are exactly its instances' namespaces, whose only source is the GitOps
// repository and which permits no cluster-scoped kind. ArgoCD refuses an Application of
// tenant A aimed at tenant B's namespace, and a tenant manifest carrying a Namespace.
func TestTenantProjectsConfineApplications(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	for _, ref := range []string{"ta/web", "ta/api", "tb/web"} {
		e.MustCLI(0, "create", ref, "-f", file, "--wait")
		e.MustCLI(0, "deploy", ref, "--wait")
	}
	app := argoApp(t, stack, "ta-web")
	require.Equal(t, "slipway-ta", app.Spec.Project)
	repo := app.Spec.Source.RepoURL
	ta := argoProject(t, stack, "slipway-ta")
	require.Equal(t, map[string]string{argocd.LabelManagedBy: argocd.ManagedBy, argocd.LabelTenant: "ta"}, ta.Metadata.Labels)
	require.Equal(t, []string{repo}, ta.Spec.SourceRepos)
	require.ElementsMatch(t, []argocd.ApplicationDestination{
		{Server: argocd.DefaultDestination, Namespace: "ta-web"}, {Server: argocd.DefaultDestination, Namespace: "ta-api"},
	}, ta.Spec.Destinations)
	raw := projectJSON(t, stack, "slipway-ta")
	require.NotContains(t, raw, "clusterResourceWhitelist", "no cluster-scoped kind is permitted")
	require.Equal(t, []argocd.ApplicationDestination{{Server: argocd.DefaultDestination, Namespace: "tb-web"}},
		argoProject(t, stack, "slipway-tb").Spec.Destinations)

	// Tenant A's Application aimed at tenant B's namespace: argocd-server refuses it.
	cross := map[string]any{
		"metadata": map[string]any{"name": "ta-steal", "labels": map[string]string{argocd.LabelTenant: "ta", argocd.LabelName: "steal"}},
		"spec": map[string]any{"project": "slipway-ta",
			"source":      map[string]any{"repoURL": repo, "path": "instances/ta/web/manifests", "targetRevision": "main"},
			"destination": map[string]any{"server": argocd.DefaultDestination, "namespace": "tb-web"}},
	}
	code, body := stack.Argo(t, http.MethodPost, "/api/v1/applications?validate=false", cross)
	require.NotEqual(t, http.StatusOK, code, "ArgoCD created an Application of ta in tb's namespace: %s", body)
	require.Contains(t, string(body), "namespace 'tb-web' do not match any of the allowed destinations in project 'slipway-ta'")
	t.Logf("cross-tenant Application refused: HTTP %d %s", code, body)
	require.Equal(t, http.StatusNotFound, get(t, stack, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/ta-steal"))

	// A tenant stack that ships a Namespace (cluster-scoped): the sync is refused by the project.
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack that brings its own namespace", map[string][]byte{
		"stacks/ownns/schema.yaml":             []byte("description: ships a Namespace\nparameters: []\n"),
		"stacks/ownns/terraform/main.tf.tmpl":  []byte("resource \"terraform_data\" \"x\" {}\n"),
		"stacks/ownns/manifests/ns.yaml.tmpl":  []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kube-stolen\n"),
		"stacks/ownns/manifests/app.yaml.tmpl": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: {{ .Namespace }}\ndata: {a: b}\n"),
	})
	e.MustCLI(0, "create", "ta/ns", "-f", writeFile(t, "stack: ownns\n"), "--wait")
	out := e.MustCLI(1, "deploy", "ta/ns", "--timeout", "90s", "--wait")
	require.Contains(t, out.Stdout, "ta/ns is DeploymentFailed")
	st := e.Status("ta/ns")
	require.Contains(t, st.Failure.Error, "one or more synchronization tasks are not valid")
	code, body = stack.Argo(t, http.MethodGet, "/api/v1/applications/ta-ns?project=slipway-ta", nil)
	require.Equal(t, http.StatusOK, code, string(body))
	require.Contains(t, string(body), "Namespace is not permitted in project slipway-ta", "ArgoCD's reason, on the resource")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/kube-stolen"))

	// Archiving an instance takes its namespace out of the project; deprovisioning leaves it out.
	e.MustCLI(0, "archive", "ta/api", "--wait")
	e.MustCLI(0, "deprovision", "ta/api", "--yes", "--wait")
	require.ElementsMatch(t, []argocd.ApplicationDestination{{Server: argocd.DefaultDestination, Namespace: "ta-web"}, {Server: argocd.DefaultDestination, Namespace: "ta-ns"}},
		argoProject(t, stack, "slipway-ta").Spec.Destinations)
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/ta-api"))
}

// Case 9: after a deploy with bootstrapped secrets, no secret value is in the Application (as
// the ArgoCD API and the kube API return it) nor in the GitOps repository; the workload gets
// them from the Secret slipway-secrets in its namespace, which archive removes with it.
func TestSecretsStayOutOfTheApplication(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "sec/web", "-f", file, "--wait")
	e.MustCLI(0, "deploy", "sec/web", "--wait")
	secrets, err := e.Activities.Secrets.Get(context.Background(), "sec", "web")
	require.NoError(t, err)
	require.Len(t, secrets, 2)

	code, viaArgo := stack.Argo(t, http.MethodGet, "/api/v1/applications/sec-web?project=slipway-sec", nil)
	require.Equal(t, http.StatusOK, code, string(viaArgo))
	code, viaKube := stack.Get(t, "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/sec-web")
	require.Equal(t, http.StatusOK, code, string(viaKube))
	_, manifests := stack.Argo(t, http.MethodGet, "/api/v1/applications/sec-web/manifests?project=slipway-sec", nil)
	var values []string
	for name, v := range secrets {
		require.NotEmpty(t, v, name)
		values = append(values, v)
		for where, text := range map[string][]byte{"ArgoCD API": viaArgo, "kube API": viaKube, "rendered manifests": manifests} {
			require.NotContains(t, string(text), v, "the Application as the %s returns it holds %s", where, name)
		}
	}
	require.NotContains(t, string(viaKube), "tlas")
	require.Empty(t, e.SecretLeaks(t, values), "no history, repo or log holds a secret")

	got := object(t, stack, "/api/v1/namespaces/sec-web/secrets/"+argocd.SecretName)
	data := got["data"].(map[string]any)
	for name, v := range secrets {
		require.Equal(t, v, decodeB64(t, data[name].(string)), "the workload reads %s from the Secret", name)
	}
	labels := got["metadata"].(map[string]any)["labels"].(map[string]any)
	require.Equal(t, "sec", labels[argocd.LabelTenant])
	annotations, _ := got["metadata"].(map[string]any)["annotations"].(map[string]any)
	require.NotContains(t, annotations, "argocd.argoproj.io/tracking-id", "not ArgoCD's to prune or show")

	e.MustCLI(0, "archive", "sec/web", "--wait")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/sec-web"), "the namespace goes, the Secret with it")
	e.MustCLI(0, "deploy", "sec/web", "--wait")
	require.Equal(t, secrets["api_key"], secretData(t, stack, "sec-web")["api_key"], "the same values come back")
}

func argoApp(t *testing.T, s *cluster.Stack, name string) argocd.Application {
	t.Helper()
	code, body := s.Argo(t, http.MethodGet, "/api/v1/applications?name="+name, nil)
	require.Equal(t, http.StatusOK, code, string(body))
	var list argocd.ApplicationList
	require.NoError(t, json.Unmarshal(body, &list))
	require.Len(t, list.Items, 1, string(body))
	return list.Items[0]
}

func projectJSON(t *testing.T, s *cluster.Stack, name string) string {
	t.Helper()
	code, body := s.Argo(t, http.MethodGet, "/api/v1/projects/"+name, nil)
	require.Equal(t, http.StatusOK, code, string(body))
	return string(body)
}

func argoProject(t *testing.T, s *cluster.Stack, name string) argocd.AppProject {
	t.Helper()
	var p argocd.AppProject
	require.NoError(t, json.Unmarshal([]byte(projectJSON(t, s, name)), &p))
	return p
}

func requireForeignLeftover(t *testing.T, lefts []contract.Leftover) {
	t.Helper()
	for _, l := range lefts {
		if l.Kind == "app" && l.ID == "hand-web" {
			require.Contains(t, l.Detail, "not created by slipway")
			require.Contains(t, l.Cleanup, "neither replaces nor deletes it")
			return
		}
	}
	t.Fatalf("no leftover names the hand-made Application: %+v", lefts)
}

func requireUntouched(t *testing.T, s *cluster.Stack, before argocd.Application) {
	t.Helper()
	now := argoApp(t, s, before.Metadata.Name)
	require.Equal(t, before.Spec, now.Spec, "the hand-made Application is not replaced")
	require.Equal(t, before.Metadata.Labels, now.Metadata.Labels)
	require.Empty(t, now.Metadata.DeletionTimestamp, "nor deleted")
}
