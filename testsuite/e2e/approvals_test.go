package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
	"github.com/slipway-dev/slipway/workflows"
)

// Approvals on the real stack (git, terraform, ArgoCD): a destructive deploy stops at
// AwaitingApproval with its plan on an open MR and nothing on main; a wrong hash, a bad hash, a
// non-approver and a reject without reason are refused with exit 2; a rejection closes the MR
// and changes nothing; a plan made again after its approval (the state moved) voids it; an
// approved destroy applies the plan it names; an unapproved archive expires with nothing done.
func TestApprovalsAreBoundToThePlan(t *testing.T) {
	stack := cluster.Start(t)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Deployer, o.ArgoURL, o.ArgoToken = "argocd", stack.ArgoURL, stack.ArgoToken
	})
	testsuite.PushFiles(t, e.GitOpsRepo, "a guarded stack", guardedStack("guarded",
		"approval: {policy: destructive, approvers: [alice], timeout: 1h}\n", nil))
	const ref = "appr/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: guarded\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait") // adds only: no approval
	ns := e.Status(ref).Names.Namespace
	require.Equal(t, "1", configMap(t, stack, ns)["generation"])
	merges := testsuite.Merges(t, e.GitOpsRepo, "instances/appr/web")

	awaiting := func() *workflows.ApprovalWait { return e.Status(ref).Approval }
	waitFor := func(not string) *workflows.ApprovalWait {
		var w *workflows.ApprovalWait
		require.Eventually(t, func() bool { w = awaiting(); return w != nil && w.Hash != not }, time.Minute, 50*time.Millisecond)
		return w
	}
	replace := writeFile(t, "stack: guarded\nparameters:\n  greeting: hello\n  generation: 2\n")
	e.MustCLI(0, "deploy", ref, "-f", replace)
	w := waitFor("")
	st := e.Status(ref)
	require.Equal(t, lifecycle.Deploying, st.State)
	c := conditionOf(st.Conditions, workflows.CondAwaitingApproval)
	require.Equal(t, lifecycle.ConditionTrue, c.Status)
	require.Contains(t, c.Message, "deletes or replaces terraform_data.app")
	require.NotNil(t, w.MR, "the plan is of the open MR")
	require.Equal(t, merges, testsuite.Merges(t, e.GitOpsRepo, "instances/appr/web"), "nothing reached main before approval")
	require.Contains(t, e.MustCLI(0, "list", "--awaiting-approval").Stdout, ref)
	out := e.MustCLI(0, "status", ref).Stdout
	for _, want := range []string{"awaiting approval: plan " + w.Hash, "delete,create terraform_data.app", "approvers: alice", "slipway approve appr/web --plan " + w.Hash[:12]} {
		require.Contains(t, out, want)
	}

	// Refusals change nothing and exit 2, naming what is wrong.
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"approve", ref, "--plan", "0000000", "--actor", "alice@desk"}, "is not the plan awaiting approval"},
		{[]string{"approve", ref, "--plan", "XYZ", "--actor", "alice@desk"}, "--plan: \"XYZ\" is not a plan hash"},
		{[]string{"approve", ref, "--actor", "alice@desk"}, "--plan is required"},
		{[]string{"approve", ref, "--plan", w.Hash, "--actor", "mallory@desk"}, "mallory@desk may not approve: the approvers are alice"},
		{[]string{"reject", ref, "--actor", "alice@desk"}, "--reason is required"},
	} {
		r := e.CLI(tc.args...)
		require.Equal(t, 2, r.Code, "%v: %s %s", tc.args, r.Stdout, r.Stderr)
		require.Contains(t, r.Stderr, tc.msg)
	}
	require.Equal(t, w.Hash, awaiting().Hash, "still waiting on the same plan")

	// A rejection closes the MR; nothing was applied.
	e.MustCLI(0, "reject", ref, "--reason", "not during the freeze", "--actor", "alice@desk")
	require.Eventually(t, func() bool { return e.Status(ref).Operation.Result == workflows.ResultRejected }, time.Minute, 50*time.Millisecond)
	st = e.Status(ref)
	require.Equal(t, lifecycle.Deployed, st.State, "back where it was")
	require.Empty(t, st.Failure, "a rejection is no failure")
	require.Empty(t, testsuite.Branches(t, e.GitOpsRepo, "slipway/appr/web/deploy"), "the MR's branch is gone")
	require.Equal(t, merges, testsuite.Merges(t, e.GitOpsRepo, "instances/appr/web"))
	require.Equal(t, "1", configMap(t, stack, ns)["generation"])
	require.Nil(t, conditionOrNil(st.Conditions, workflows.CondAwaitingApproval))

	// Approved, then the state moves before the apply: the plan made again needs its own approval.
	e.MustCLI(0, "deploy", ref, "-f", replace)
	first := waitFor("")
	bumpStateSerial(t, e, "appr", "web")
	e.MustCLI(0, "approve", ref, "--plan", first.Hash[:7], "--actor", "alice@desk")
	second := waitFor(first.Hash)
	require.Equal(t, first.Hash, second.Voids)
	voided := e.CLI("approve", ref, "--plan", first.Hash, "--actor", "alice@desk")
	require.Equal(t, 2, voided.Code)
	require.Contains(t, voided.Stderr, fmt.Sprintf("plan %s was voided", first.Hash[:12]))
	approvedAt := time.Now()
	e.MustCLI(0, "approve", ref, "--plan", second.Hash, "--actor", "alice@laptop", "--reason", "replan reviewed")
	require.Eventually(t, func() bool {
		return e.Status(ref).State == lifecycle.Deployed && e.Status(ref).Operation.Result == workflows.ResultSucceeded
	},
		2*time.Minute, 100*time.Millisecond)
	t.Logf("approve of the new plan to Deployed (apply, ArgoCD sync): %s", time.Since(approvedAt).Round(time.Millisecond))
	require.Equal(t, "2", configMap(t, stack, ns)["generation"])
	log := e.MustCLI(0, "status", ref, "-o", "all", "--json").Stdout
	for _, ev := range []string{`"event": "rejected"`, `"event": "voided"`, `"event": "approved"`, `"actor": "alice@laptop"`} {
		require.Contains(t, log, ev)
	}
	events := e.MustCLI(0, "events", ref).Stdout
	for _, line := range []string{"(note: alice@desk): not during the freeze", "awaiting approval of plan " + second.Hash[:12],
		"it voids the approval of plan " + first.Hash[:12], "plan " + second.Hash[:12] + " of deploy", "approved"} {
		require.Contains(t, events, line)
	}

	// An archive nobody approves expires: nothing is removed.
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: guarded\nparameters:\n  greeting: hi\n  generation: 2\napproval: {timeout: 3s}\n"), "--wait")
	e.MustCLI(0, "archive", ref)
	if !assert.Eventually(t, func() bool { return e.Status(ref).Operation.Result == workflows.ResultExpired }, time.Minute, 100*time.Millisecond) {
		t.Fatalf("status:\n%s", e.MustCLI(0, "status", ref, "-o", "all").Stdout)
	}
	st = e.Status(ref)
	require.Equal(t, workflows.ResultExpired, st.Operation.Result)
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, "hi", configMap(t, stack, ns)["greeting"], "the app is still there")

	// An approved destroy applies the destroy plan the approval names.
	e.MustCLI(0, "destroy", ref)
	w = waitFor("")
	require.Contains(t, w.What, "terraform destroy")
	e.MustCLI(0, "approve", ref, "--plan", w.Hash, "--actor", "alice@desk")
	require.Eventually(t, func() bool { return e.Status(ref).State == lifecycle.Destroyed }, 2*time.Minute, 100*time.Millisecond)
	st = e.Status(ref)
	var applied string
	for _, s := range st.Operation.Steps {
		if s.Name == steps.TFDestroy {
			applied = s.Detail
		}
	}
	require.True(t, strings.HasPrefix(applied, "approved destroy plan "+w.Hash[:12]), applied)
	require.Empty(t, e.Resources(steps.Ref{Tenant: "appr", Name: "web"}))
	testsuite.RecordHistories(t, e.Client.Temporal, workflows.InstanceWorkflowID(steps.Ref{Tenant: "appr", Name: "web"}), "approvals")
}
