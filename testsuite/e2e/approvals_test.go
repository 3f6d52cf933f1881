package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// Approvals on the real stack (git, terraform, ArgoCD), decided by the default policy with the
// stack's approval: as input: a destructive deploy stops at AwaitingApproval with its plan on an
// open MR and nothing on main; the plan and its hash show only to an approver (alice), not to the
// requester who may not approve nor to anyone else; a wrong hash, a bad hash and a reject without
// reason are refused with exit 2; a non-approver is refused by the policy before the plan is
// checked, and told nothing about it; a rejection closes the MR and changes nothing; a plan made
// again after its approval (the state moved) voids it; an unapproved archive expires with nothing
// done; alice's destroy waits for a platform admin: alice cannot approve it, carol can, and the
// approved destroy applies the plan it names.
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

	// alice approves (the stack names her); the requests are the dev key holder's (a platform admin).
	asAlice := func() (st contract.Status) { as(t, "alice:tenant:appr", func() { st = e.Status(ref) }); return st }
	awaiting := func() *contract.ApprovalWait { return asAlice().Approval }
	waitFor := func(not string) *contract.ApprovalWait {
		var w *contract.ApprovalWait
		require.Eventually(t, func() bool { w = awaiting(); return w != nil && w.Hash != not }, time.Minute, 50*time.Millisecond)
		return w
	}
	replace := writeFile(t, "stack: guarded\nparameters:\n  greeting: hello\n  generation: 2\n")
	e.MustCLI(0, "deploy", ref, "-f", replace)
	w := waitFor("")
	require.NotEmpty(t, w.Hash)
	require.Equal(t, &policy.Requirement{Groups: []string{"user:alice"}, Count: 1}, w.Required, "the stack's approvers, through the policy")
	require.Contains(t, w.Why, "deletes or replaces terraform_data.app")
	st := e.Status(ref)
	require.Equal(t, lifecycle.Deploying, st.State)
	c := conditionOf(st.Conditions, contract.CondAwaitingApproval)
	require.Equal(t, lifecycle.ConditionTrue, c.Status)
	require.Contains(t, c.Message, "awaiting approval by user:alice")
	require.NotNil(t, w.MR, "the plan is of the open MR")
	require.Equal(t, merges, testsuite.Merges(t, e.GitOpsRepo, "instances/appr/web"), "nothing reached main before approval")
	require.Contains(t, e.MustCLI(0, "list", "--awaiting-approval").Stdout, ref)
	var out string
	as(t, "alice", func() { out = e.MustCLI(0, "status", ref).Stdout })
	for _, want := range []string{"awaiting approval by user:alice", "awaiting approval: plan " + w.Hash, "delete,create terraform_data.app", "slipway approve appr/web --plan " + w.Hash[:12]} {
		require.Contains(t, out, want)
	}
	// The requester (a platform admin, not an approver of this plan) and anyone else read who must
	// approve, not the plan: nowhere in status, events or the approval log.
	for _, who := range []string{"", "mallory", "bob:tenant:other"} {
		as(t, who, func() {
			text := e.MustCLI(0, "status", ref).Stdout + e.MustCLI(0, "status", ref, "-o", "all", "--json").Stdout + e.MustCLI(0, "events", ref).Stdout
			require.Contains(t, text, "awaiting approval by user:alice", who)
			require.NotContains(t, text, w.Hash[:12], "%q reads the hash:\n%s", who, text)
			for _, plan := range []string{"delete,create", "deletes or replaces", `"delete",`} {
				require.NotContains(t, text, plan, "%q reads the plan:\n%s", who, text)
			}
		})
	}

	// Refusals change nothing and exit 2, naming what is wrong.
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"approve", ref, "--plan", "0000000"}, "the plan hash does not match the plan awaiting approval"},
		{[]string{"approve", ref, "--plan", "XYZ"}, "--plan: \"XYZ\" is not a plan hash"},
		{[]string{"approve", ref}, "--plan is required"},
		{[]string{"reject", ref}, "--reason is required"},
	} {
		as(t, "alice", func() {
			r := e.CLI(tc.args...)
			require.Equal(t, 2, r.Code, "%v: %s %s", tc.args, r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, tc.msg)
		})
	}
	// Someone the policy does not name is refused before the plan is checked: right hash or
	// wrong, the answer is the same and says nothing about the plan.
	for _, plan := range []string{w.Hash, "0000000"} {
		as(t, "mallory", func() {
			r := e.CLI("approve", ref, "--plan", plan)
			require.NotEqual(t, 0, r.Code, "%s %s", r.Stdout, r.Stderr)
			require.Contains(t, r.Stderr, "mallory may not approve: not one of the approvers (user:alice)")
			require.NotContains(t, r.Stderr+r.Stdout, w.Hash[:7])
			require.NotContains(t, r.Stderr, "does not match the plan awaiting approval")
		})
	}
	require.Equal(t, w.Hash, awaiting().Hash, "still waiting on the same plan")

	// A rejection closes the MR; nothing was applied.
	as(t, "alice", func() { e.MustCLI(0, "reject", ref, "--reason", "not during the freeze") })
	require.Eventually(t, func() bool { return e.Status(ref).Operation.Result == contract.ResultRejected }, time.Minute, 50*time.Millisecond)
	st = e.Status(ref)
	require.Equal(t, lifecycle.Deployed, st.State, "back where it was")
	require.Empty(t, st.Failure, "a rejection is no failure")
	require.Empty(t, testsuite.Branches(t, e.GitOpsRepo, "slipway/appr/web/deploy"), "the MR's branch is gone")
	require.Equal(t, merges, testsuite.Merges(t, e.GitOpsRepo, "instances/appr/web"))
	require.Equal(t, "1", configMap(t, stack, ns)["generation"])
	require.Nil(t, conditionOrNil(st.Conditions, contract.CondAwaitingApproval))

	// Approved, then the state moves before the apply: the plan made again needs its own approval.
	e.MustCLI(0, "deploy", ref, "-f", replace)
	first := waitFor("")
	bumpStateSerial(t, e, "appr", "web")
	as(t, "alice", func() { e.MustCLI(0, "approve", ref, "--plan", first.Hash[:7]) })
	second := waitFor(first.Hash)
	require.Equal(t, first.Hash, second.Voids)
	as(t, "alice", func() {
		voided := e.CLI("approve", ref, "--plan", first.Hash)
		require.Equal(t, 2, voided.Code)
		require.Contains(t, voided.Stderr, "the plan hash names a plan voided at")
		require.NotContains(t, voided.Stderr, first.Hash[:7], "a refusal echoes no part of a hash")
	})
	approvedAt := time.Now()
	as(t, "alice", func() { e.MustCLI(0, "approve", ref, "--plan", second.Hash, "--reason", "replan reviewed") })
	require.Eventually(t, func() bool {
		return e.Status(ref).State == lifecycle.Deployed && e.Status(ref).Operation.Result == contract.ResultSucceeded
	},
		2*time.Minute, 100*time.Millisecond)
	t.Logf("approve of the new plan to Deployed (apply, ArgoCD sync): %s", time.Since(approvedAt).Round(time.Millisecond))
	require.Equal(t, "2", configMap(t, stack, ns)["generation"])
	log := e.MustCLI(0, "status", ref, "-o", "all", "--json").Stdout
	for _, ev := range []string{`"event": "rejected"`, `"event": "voided"`, `"event": "approved"`, `"event": "refused"`, `"actor": "alice"`, `"actor": "mallory"`} {
		require.Contains(t, log, ev)
	}
	events := e.MustCLI(0, "events", ref).Stdout
	for _, line := range []string{"not during the freeze", "awaiting approval by user:alice",
		"it voids an earlier approval", "plan " + second.Hash[:12] + " of deploy", "approved"} {
		require.Contains(t, events, line)
	}

	// An archive nobody approves expires: nothing is removed.
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: guarded\nparameters:\n  greeting: hi\n  generation: 2\napproval: {timeout: 3s}\n"), "--wait")
	e.MustCLI(0, "archive", ref)
	if !assert.Eventually(t, func() bool { return e.Status(ref).Operation.Result == contract.ResultExpired }, time.Minute, 100*time.Millisecond) {
		t.Fatalf("status:\n%s", e.MustCLI(0, "status", ref, "-o", "all").Stdout)
	}
	st = e.Status(ref)
	require.Equal(t, contract.ResultExpired, st.Operation.Result)
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, "hi", configMap(t, stack, ns)["greeting"], "the app is still there")

	// alice's destroy waits for a platform admin, whatever the stack says: alice may not approve
	// her own request, carol (platform-admins) may; the approved destroy applies the plan it names.
	as(t, "alice:tenant:appr", func() { e.MustCLI(0, "destroy", ref) })
	var wd *contract.ApprovalWait
	require.Eventually(t, func() bool {
		as(t, "carol:platform-admins", func() { wd = e.Status(ref).Approval })
		return wd != nil && !wd.Redacted
	}, 2*time.Minute, 50*time.Millisecond, "the destroy's plan awaits approval (28 s alone; over a minute on a loaded 2-core machine)")
	w = wd
	require.Contains(t, w.What, "terraform destroy")
	require.Equal(t, []string{"platform-admins"}, w.Required.Groups)
	require.Equal(t, "alice", w.Requester.Name)
	as(t, "alice:tenant:appr", func() {
		require.True(t, awaiting().Redacted, "alice may not approve the destroy: she does not see its plan")
		r := e.CLI("approve", ref, "--plan", w.Hash)
		require.NotEqual(t, 0, r.Code)
		require.Contains(t, r.Stderr, "alice asked for this and may not approve it: self-approval is refused")
	})
	as(t, "alice:platform-admins", func() {
		r := e.CLI("approve", ref, "--plan", w.Hash)
		require.NotEqual(t, 0, r.Code, "a platform admin's approval of her own request is still hers")
		require.Contains(t, r.Stderr, "self-approval is refused")
	})
	require.Equal(t, lifecycle.Destroying, e.Status(ref).State, "still waiting")
	as(t, "carol:platform-admins", func() { e.MustCLI(0, "approve", ref, "--plan", w.Hash) })
	require.Eventually(t, func() bool { return e.Status(ref).State == lifecycle.Destroyed }, 2*time.Minute, 100*time.Millisecond)
	st = e.Status(ref)
	var applied string
	for _, s := range st.Operation.Steps {
		if s.Name == contract.TFDestroy {
			applied = s.Detail
		}
	}
	require.True(t, strings.HasPrefix(applied, "approved destroy plan "+w.Hash[:12]), applied)
	require.Empty(t, e.Resources(contract.Ref{Tenant: "appr", Name: "web"}))
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(contract.Ref{Tenant: "appr", Name: "web"}), "approvals-signal-inline")
}
