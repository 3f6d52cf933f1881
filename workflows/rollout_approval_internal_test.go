package workflows

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
)

// An approval of a plan shape is refused to the rollout's starter (four eyes) and audited either
// way; once given, every deploy waiting with that shape, and one that waits with it later, is
// approved as the approver, naming the plan it waits with; a deploy of another shape keeps waiting.
func TestRolloutApprovesAShapeOnBehalfOfItsApprover(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	var mu sync.Mutex
	var audits []contract.AuditRecord
	approved := map[string]contract.RolloutApproveInput{}
	env.RegisterActivityWithOptions(func(_ context.Context, w contract.AuditWrite) error {
		mu.Lock()
		defer mu.Unlock()
		audits = append(audits, w.Record)
		return nil
	}, activity.RegisterOptions{Name: contract.ActRecordAudit})
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.RolloutApproveInput) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		approved[in.Ref.String()] = in
		return "", nil
	}, activity.RegisterOptions{Name: contract.ActRolloutApprove})
	alice := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-alice", Name: "alice"}
	carol := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-carol", Name: "carol"}
	update := contract.PlanSummary{Change: 1, Resources: []contract.ResourceChange{{Address: "terraform_data.app", Type: "terraform_data",
		Actions: []string{"update"}, Attributes: []contract.AttributeChange{{Path: "input"}}}}}
	replace := contract.PlanSummary{Add: 1, Destroy: 1, Resources: []contract.ResourceChange{{Address: "terraform_data.db", Type: "terraform_data",
		Actions: []string{"delete", "create"}}}}
	var selfErr error
	var st contract.RolloutState
	wf := func(ctx workflow.Context) error {
		r := &rollout{}
		r.s = contract.RolloutState{Spec: contract.RolloutSpec{ID: "r1", Stack: "web"}, Phase: contract.PhaseRunning, Requester: &alice, Stateful: []string{"terraform_data.db"}}
		for _, n := range []string{"a", "b", "c", "d"} {
			r.s.Instances = append(r.s.Instances, contract.RolloutInstance{RolloutAction: contract.RolloutAction{Ref: contract.Ref{Tenant: "t", Name: n}}, Status: contract.RolloutRunning})
		}
		workflow.Go(ctx, r.receiveApprovalWaits)
		_ = workflow.Sleep(ctx, time.Second)
		fp := r.s.Groups[0].Fingerprint
		selfErr = r.approveGroup(ctx, contract.RolloutApproveRequest{Fingerprint: fp}, alice, true)
		if err := r.approveGroup(ctx, contract.RolloutApproveRequest{Fingerprint: fp, Reason: "as previewed"}, carol, true); err != nil {
			return err
		}
		_ = workflow.Sleep(ctx, time.Second)
		st = r.s
		return nil
	}
	env.RegisterWorkflow(wf)
	wait := func(name, hash string, p contract.PlanSummary) contract.RolloutApprovalWait {
		return contract.RolloutApprovalWait{Ref: contract.Ref{Tenant: "t", Name: name}, OpID: "op-" + name, Hash: hash, Plan: p}
	}
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.SignalRolloutApproval, wait("a", "ha", update))
		env.SignalWorkflow(contract.SignalRolloutApproval, wait("b", "hb", update))
		env.SignalWorkflow(contract.SignalRolloutApproval, wait("c", "hc", replace))
	}, 100*time.Millisecond)
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(contract.SignalRolloutApproval, wait("d", "hd", update)) }, 1500*time.Millisecond)
	env.ExecuteWorkflow(wf)
	require.NoError(t, env.GetWorkflowError())

	require.ErrorContains(t, selfErr, "alice started this rollout and may not approve its plans: self-approval is refused")
	require.Len(t, st.Groups, 2)
	require.Equal(t, "replace terraform_data.db (stateful!)", st.Groups[1].Summary, "fingerprinted with the release's stateful: list")
	require.Equal(t, &carol, st.Groups[0].ApprovedBy)
	require.Equal(t, []string{"t/a", "t/b", "t/d"}, st.Groups[0].Refs)
	require.Len(t, approved, 3, "a, b, and d that waited after the approval; not c")
	require.Equal(t, "hd", approved["t/d"].Hash)
	require.Equal(t, carol, approved["t/a"].Approver)
	require.Equal(t, "as previewed", approved["t/a"].Reason)
	require.False(t, st.Instances[2].Awaiting.Approved, "c's shape is not approved: it waits")
	require.Len(t, audits, 2)
	require.Equal(t, contract.AuditDenied, audits[0].Decision)
	require.Equal(t, AuditApproved, audits[1].Decision)
	require.Equal(t, "carol", audits[1].Actor.Name)
}
