package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/testsuite"
)

// authorizeProbe asks the worker's policy, as a local activity, as the pipelines do.
func authorizeProbe(ctx workflow.Context, in policy.Input) (policy.Decision, error) {
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var d policy.Decision
	err := workflow.ExecuteLocalActivity(ctx, contract.ActAuthorize, in).Get(ctx, &d)
	return d, err
}

// The worker loads the operator's bundle from SLIPWAY_POLICY_DIR, decides through it on the real
// dev server, and the decision (with the bundle's hash) is in the workflow's history; a bundle
// that does not compile stops the worker before it starts, naming file and line.
func TestWorkerDecidesWithTheOperatorsPolicy(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"data.json", "slipway.rego", "slipway_test.rego"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "internal", "policy", "default", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), src, 0o644))
	}
	// The operator's change: a change freeze on tenant acme, for everyone but platform-admins.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "freeze.rego"), []byte(`package slipway

deny contains "acme is frozen until the audit ends" if {
	input.tenant == "acme"
	not "platform-admins" in input.actor.groups
}
`), 0o644))
	want, err := policy.Load(dir)
	require.NoError(t, err)
	t.Setenv(policy.EnvDir, dir)
	e := testsuite.NewEnv(t)
	require.Equal(t, want.Hash(), e.Activities.Policy.Hash())

	tq := e.TaskQueue + "-policy"
	w := worker.New(e.Client.Temporal, tq, worker.Options{})
	w.RegisterWorkflowWithOptions(authorizeProbe, workflow.RegisterOptions{Name: "AuthorizeProbe"})
	w.RegisterActivity(e.Activities)
	require.NoError(t, w.Start())
	defer w.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	decide := func(id string, actor identity.Actor) policy.Decision {
		run, err := e.Client.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: tq}, "AuthorizeProbe",
			policy.Input{Actor: actor, Operation: "deploy", Tenant: "acme", Name: "web", State: "running", Stack: policy.Stack{Name: "web"}})
		require.NoError(t, err)
		var d policy.Decision
		require.NoError(t, run.Get(ctx, &d))
		return d
	}
	alice := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "a", Name: "alice", Groups: []string{"tenant:acme"}}
	carol := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "c", Name: "carol", Groups: []string{"platform-admins"}}

	d := decide("policy-probe-alice", alice)
	require.False(t, d.Allow)
	require.Equal(t, "acme is frozen until the audit ends", d.Reason)
	require.Equal(t, want.Hash(), d.PolicyHash)
	require.True(t, decide("policy-probe-carol", carol).Allow)

	// One marker, no activity task: the decision is recorded where a replay reads it.
	var markers, tasks int
	iter := e.Client.Temporal.GetWorkflowHistory(ctx, "policy-probe-alice", "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			markers++
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			tasks++
		}
	}
	require.Equal(t, 1, markers)
	require.Zero(t, tasks)

	// A policy that does not compile: the worker does not start.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "freeze.rego"), []byte("package slipway\n\ndeny contains \"x\" if {\n\tinput.tenant ==\n}\n"), 0o644))
	_, err = devenv.Start(context.Background(), devenv.EnvOptions{StateDir: t.TempDir(), Address: e.Address, TaskQueue: tq + "-broken", Headless: true})
	require.Error(t, err)
	require.Contains(t, err.Error(), policy.EnvDir+": "+filepath.Join(dir, "freeze.rego")+":5: rego_parse_error")
	require.False(t, strings.Contains(err.Error(), "panic"))
}

// A stack's stateful: is checked with the rest of the stack (a bad entry is refused with exit 2
// naming schema.stateful, and nothing is created), and reaches the pipeline's controls, read from
// the real GitOps repo, for the policy to read as input.stack.stateful.
func TestStackStatefulIsCheckedAndReachesThePipeline(t *testing.T) {
	e := testsuite.NewEnv(t)
	repo := e.GitOpsRepo
	file := writeFile(t, "stack: db\nparameters:\n  greeting: hello\n")

	testsuite.PushFiles(t, repo, "a stack with a bad stateful entry", guardedStack("db", "approval: never\nstateful: [\"terraform_data.app[0]\"]\n", nil))
	r := e.MustCLI(2, "create", "db/web", "-f", file, "--wait")
	require.Contains(t, r.Stderr, `schema.stateful: "terraform_data.app[0]" is not a terraform resource type`)
	require.Equal(t, 2, e.CLI("status", "db/web").Code, "no instance was created")
	require.Empty(t, testsuite.Git(t, repo, "ls-tree", "main", "instances/"), "nothing reached the repo")

	testsuite.PushFiles(t, repo, "stateful: the app's data", guardedStack("db", "approval: never\nstateful: [terraform_data.app]\n", nil))
	e.MustCLI(0, "create", "db/web", "-f", file, "--wait")
	out, err := e.Activities.ValidateConfig(context.Background(), contract.ValidateInput{Ref: contract.Ref{Tenant: "db", Name: "web"},
		ConfigYAML: "stack: db\nparameters:\n  greeting: hello\n"})
	require.NoError(t, err)
	require.Equal(t, []string{"terraform_data.app"}, out.Controls.Stateful)
	require.Equal(t, "never", string(out.Controls.Approval.Policy))
}
