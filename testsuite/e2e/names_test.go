package e2e

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/nameclaim"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
	"github.com/slipway-dev/slipway/testsuite/postgres"
	"github.com/slipway-dev/slipway/workflows"
)

// A name is held by one instance at a time, on the real dev server: a second instance is
// refused with the holder's name and keeps nothing it took; the holder may claim again;
// only the holder releases; a released name can be claimed by another. A held claim is one
// history event, run by no worker, and its release terminates it.
func TestNameClaimsAreExclusive(t *testing.T) {
	e := testsuite.NewEnv(t)
	ctx := t.Context()
	reg := nameclaim.New(e.Client.Temporal, e.TaskQueue)
	shared := names.Derive("claims", "shared").Claims()
	holder := func(cl names.Claim) string {
		h, running, err := reg.Holder(ctx, cl)
		require.NoError(t, err)
		if !running {
			return ""
		}
		return h
	}

	require.NoError(t, reg.Claim(ctx, "claims/a", shared))
	for _, cl := range shared {
		require.Equal(t, "claims/a", holder(cl), cl.String())
	}
	claimID := contract.NameClaimWorkflowID(shared[0].Kind, shared[0].Value)
	evs, _ := latestHistory(ctx, t, e, claimID)
	var types []enumspb.EventType
	for _, ev := range evs {
		types = append(types, ev.GetEventType())
	}
	require.Equal(t, []enumspb.EventType{enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED}, types, "a held claim runs no workflow task")
	// Nor is it a run retire-version must wait for: it is on no branch of verified-requests.
	count := func(q string) int64 {
		r, err := e.Client.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: q + ` AND WorkflowId = "` + claimID + `"`})
		require.NoError(t, err)
		return r.Count
	}
	waitFor(t, "the held claim in visibility", func() bool { return count(`ExecutionStatus = "Running"`) == 1 })
	vr, _ := workflows.ChangeByID("verified-requests")
	require.Zero(t, count(vr.RunningOnQuery(workflow.DefaultVersion)), "a held claim is listed as on an old branch")

	free := names.Claim{Kind: names.KindSchema, Value: "slipway_claims_free"}
	err := reg.Claim(ctx, "claims/b", []names.Claim{free, shared[1]})
	var taken *names.TakenError
	require.ErrorAs(t, err, &taken)
	require.Equal(t, "claims/a", taken.Holder)
	require.Equal(t, shared[1], taken.Claim)
	require.Equal(t, "ArgoCD application claims-shared is already used by instance claims/a", err.Error())
	require.Empty(t, holder(free), "a refused claim keeps nothing it took")

	require.NoError(t, reg.Claim(ctx, "claims/a", shared), "the holder claiming again is a retry")
	require.NoError(t, reg.Release(ctx, "claims/b", shared))
	require.Equal(t, "claims/a", holder(shared[0]), "only the holder releases")

	require.NoError(t, reg.Release(ctx, "claims/a", shared))
	require.Empty(t, holder(shared[0]), "release returns once the claim has ended")
	evs, _ = latestHistory(ctx, t, e, claimID)
	require.Equal(t, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, evs[len(evs)-1].GetEventType())
	require.Equal(t, "released by claims/a", evs[len(evs)-1].GetWorkflowExecutionTerminatedEventAttributes().GetReason())
	require.NoError(t, reg.Release(ctx, "claims/a", shared), "releasing twice is harmless")
	require.NoError(t, reg.Claim(ctx, "claims/b", shared))
	require.Equal(t, "claims/b", holder(shared[2]))
}

// Provision refuses a ref whose names another instance holds: exit 2, the other instance
// named, nothing in git; through the workflow too, not only the CLI's early check. Once the
// name is free, the same create succeeds and records the names, and deprovision gives them back.
func TestProvisionRefusesANameAnotherInstanceHolds(t *testing.T) {
	e := testsuite.NewEnv(t)
	ctx := t.Context()
	reg := nameclaim.New(e.Client.Temporal, e.TaskQueue)
	want := names.Derive("a", "b-c")
	squatted := want.Claims()[:1]
	require.NoError(t, reg.Claim(ctx, "x/y", squatted))
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")

	for _, args := range [][]string{{"create", "a/b-c", "-f", file}, {"create", "a/b-c", "-f", file, "--wait"}} {
		r := e.MustCLI(2, args...)
		require.Contains(t, r.Stderr, "a/b-c: kubernetes namespace "+want.Namespace+" is already used by instance x/y; choose another name")
	}

	// The workflow's own claim, which holds even when a request skips the CLI's check.
	ref := contract.Ref{Tenant: "a", Name: "b-c"}
	h, err := e.Client.Submit(ctx, ref, lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: "stack: example\nparameters:\n  greeting: hello\n"}, "")
	if err == nil {
		_, err = h.Get(ctx)
	}
	var rejected *client.RejectedError
	require.True(t, errors.As(err, &rejected), "got %v", err)
	require.Contains(t, rejected.Message, "already used by instance x/y")
	require.True(t, client.IsBadRequest(err), "the CLI turns it into exit 2")
	require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/a/"), "nothing reached the repo")
	held, _, err := reg.Holder(ctx, want.Claims()[1])
	require.NoError(t, err)
	require.Empty(t, held, "the refused provision keeps none of its names")

	require.NoError(t, reg.Release(ctx, "x/y", squatted))
	e.MustCLI(0, "create", "a/b-c", "-f", file, "--wait")
	st := e.Status("a/b-c")
	require.Equal(t, &want, st.Names)
	out := e.MustCLI(0, "status", "a/b-c")
	require.Contains(t, out.Stdout, "names: namespace "+want.Namespace+", application "+want.Application+", schema "+want.Schema)

	e.MustCLI(0, "deprovision", "a/b-c", "--yes", "--wait")
	for _, cl := range want.Claims() {
		held, running, err := reg.Holder(ctx, cl)
		require.NoError(t, err)
		require.False(t, running, "deprovision gave %s back (held by %q)", cl, held)
	}
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "names")
}

// The pair of issue 12 lives side by side through deploy and deprovision: a-b/c and a/b-c
// each get their own namespace and objects in the real cluster (ArgoCD), their own Application
// and their own terraform state in the real pg backend; deprovisioning one leaves the other
// intact and Synced+Healthy.
func TestCollidingRefsLiveSideBySide(t *testing.T) {
	stack := cluster.Start(t)
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "slipway")
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
		o.TFPGConn = conn
	})
	type inst struct {
		ref      string
		sref     contract.Ref
		greeting string
		n        names.Names
		infra    int
	}
	left := &inst{ref: "a-b/c", sref: contract.Ref{Tenant: "a-b", Name: "c"}, greeting: "left"}
	right := &inst{ref: "a/b-c", sref: contract.Ref{Tenant: "a", Name: "b-c"}, greeting: "right"}
	for _, in := range []*inst{left, right} {
		file := writeFile(t, "stack: example\nparameters:\n  greeting: "+in.greeting+"\n")
		e.MustCLI(0, "create", in.ref, "-f", file, "--wait")
		e.MustCLI(0, "deploy", in.ref, "--wait")
		st := e.Status(in.ref)
		require.Equal(t, lifecycle.Deployed, st.State)
		require.Equal(t, lifecycle.ConditionTrue, condition(st.Conditions, lifecycle.CondReady), "%s: %+v", in.ref, st.Conditions)
		require.NotNil(t, st.Names, in.ref)
		require.Equal(t, names.Derive(in.sref.Tenant, in.sref.Name), *st.Names, "%s records Derive's names", in.ref)
		in.n = *st.Names
		in.sref.Names = st.Names
	}
	require.NotEqual(t, left.n.Namespace, right.n.Namespace)
	require.NotEqual(t, left.n.Application, right.n.Application)
	require.NotEqual(t, left.n.Schema, right.n.Schema)
	t.Logf("a-b/c: %+v; a/b-c: %+v", left.n, right.n)

	for _, in := range []*inst{left, right} {
		requireOwnResources(t, stack, pg, in.sref, in.n, in.greeting)
		in.infra = len(e.Resources(in.sref))
		require.Positive(t, in.infra, in.ref)
	}

	e.MustCLI(0, "deprovision", right.ref, "--yes", "--wait")
	require.Equal(t, http.StatusNotFound, get(t, stack, "/api/v1/namespaces/"+right.n.Namespace))
	require.Equal(t, http.StatusNotFound, get(t, stack, appPath(right.n.Application)))
	require.Empty(t, e.Resources(right.sref), "a/b-c's state is destroyed")
	require.Nil(t, e.Status(right.ref).Names, "a deprovisioned instance gives its names back")
	require.Empty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/a/b-c"))

	// a-b/c is untouched: its namespace, objects, Application, state and config.
	requireOwnResources(t, stack, pg, left.sref, left.n, left.greeting)
	require.Len(t, e.Resources(left.sref), left.infra, "a-b/c keeps its infrastructure")
	require.NotEmpty(t, testsuite.Git(t, e.GitOpsRepo, "ls-tree", "main", "instances/a-b/c/instance.yaml"))
	st := e.Status(left.ref)
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, &left.n, st.Names)
	sync, health := appHealth(t, stack, left.n.Application)
	require.Equal(t, "Synced", sync)
	require.Equal(t, "Healthy", health)
	e.MustCLI(0, "plan", left.ref) // and it still plans against its own state
}

// requireOwnResources checks that the instance's namespace holds its own objects, its
// Application exists, and its pg schema holds a state whose namespace is its own.
func requireOwnResources(t *testing.T, stack *cluster.Stack, pg *postgres.Server, ref contract.Ref, n names.Names, greeting string) {
	t.Helper()
	labels := object(t, stack, "/api/v1/namespaces/"+n.Namespace)["metadata"].(map[string]any)["labels"].(map[string]any)
	require.Equal(t, ref.Tenant, labels["slipway.dev/tenant"], n.Namespace)
	require.Equal(t, ref.Name, labels[argocd.LabelName], n.Namespace)
	require.Equal(t, greeting, configMap(t, stack, n.Namespace)["greeting"], "%s's ConfigMap is its own", ref)
	require.Equal(t, http.StatusOK, get(t, stack, "/api/v1/namespaces/"+n.Namespace+"/secrets/"+argocd.SecretName), "%s's Secret", ref)
	app := object(t, stack, appPath(n.Application))
	appLabels := app["metadata"].(map[string]any)["labels"].(map[string]any)
	require.Equal(t, ref.Tenant, appLabels["slipway.dev/tenant"])
	require.Equal(t, ref.Name, appLabels["slipway.dev/name"])
	require.Equal(t, n.Namespace, app["spec"].(map[string]any)["destination"].(map[string]any)["namespace"])

	data := pg.Query(t, "slipway", "SELECT data FROM "+n.Schema+".states WHERE name = 'default'")
	var state struct {
		Outputs map[string]struct {
			Value any `json:"value"`
		} `json:"outputs"`
	}
	require.NoError(t, json.Unmarshal([]byte(data), &state), data)
	require.Equal(t, n.Namespace, state.Outputs["namespace"].Value, "schema %s holds %s's own state", n.Schema, ref)
}

func appPath(name string) string {
	return "/apis/argoproj.io/v1alpha1/namespaces/argocd/applications/" + name
}

// appHealth is what ArgoCD itself reports for the Application now.
func appHealth(t *testing.T, stack *cluster.Stack, name string) (sync, health string) {
	t.Helper()
	var app struct {
		Status struct {
			Sync   struct{ Status string } `json:"sync"`
			Health struct{ Status string } `json:"health"`
		} `json:"status"`
	}
	code, body := stack.Get(t, appPath(name))
	require.Equal(t, http.StatusOK, code, string(body))
	require.NoError(t, json.Unmarshal(body, &app))
	return app.Status.Sync.Status, app.Status.Health.Status
}
