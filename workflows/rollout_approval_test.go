package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

type updateOutcome struct{ err error }

func (u *updateOutcome) Accept()                 {}
func (u *updateOutcome) Reject(err error)        { u.err = err }
func (u *updateOutcome) Complete(_ any, e error) { u.err = e }

// The deploys that wait for approval group by plan shape (values and instance keys aside), the
// status lists the shapes and names each waiting instance without its plan's hash; a fingerprint
// that names no shape is refused naming --fingerprint, and an approval without a verified
// identity is refused (the rollout approves on the approver's behalf: it must know who).
func TestRolloutGroupsWaitingDeploysByPlanShape(t *testing.T) {
	env, _ := newRolloutEnv(t, updates(3))
	update := func(addr, attr, after string) contract.PlanSummary {
		return contract.PlanSummary{Change: 1, Resources: []contract.ResourceChange{{Address: addr, Type: "terraform_data", Actions: []string{"update"},
			Attributes: []contract.AttributeChange{{Path: attr, Before: `"a"`, After: after}}}}}
	}
	var st *contract.RolloutStatus
	unknown, unverified := &updateOutcome{}, &updateOutcome{}
	var send, query func()
	send = func() {
		// Only a deploy the rollout sent can wait: signal once all three run.
		if q := queryRollout(t, env); len(q.Instances) < 3 || q.Instances[2].Status != contract.RolloutRunning {
			env.RegisterDelayedCallback(send, 10*time.Millisecond)
			return
		}
		for i, p := range []contract.PlanSummary{update(`terraform_data.app["x"]`, "input", `"b"`), update(`terraform_data.app["y"]`, "input", `"c"`),
			{Add: 1, Destroy: 1, Resources: []contract.ResourceChange{{Address: "terraform_data.db", Type: "terraform_data", Actions: []string{"delete", "create"}}}}} {
			env.SignalWorkflow(contract.SignalRolloutApproval, contract.RolloutApprovalWait{Ref: updates(3)[i].Ref, OpID: "op", Hash: "secrethash", Plan: p})
		}
		env.RegisterDelayedCallback(query, 100*time.Millisecond)
	}
	env.RegisterDelayedCallback(send, 10*time.Millisecond)
	query = func() {
		st = queryRollout(t, env)
		env.UpdateWorkflow(contract.UpdateRolloutApprove, "a1", unknown, contract.RolloutApproveRequest{Fingerprint: "000000000000", Actor: "carol"})
		if len(st.Groups) > 0 {
			env.UpdateWorkflow(contract.UpdateRolloutApprove, "a2", unverified, contract.RolloutApproveRequest{Fingerprint: st.Groups[0].Fingerprint, Actor: "carol"})
		}
		env.CancelWorkflow()
	}
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "ra", Stack: "web", BatchSize: 3, MaxFailures: 1}})
	require.NotNil(t, st)
	require.Len(t, st.Groups, 2, "two plan shapes")
	require.Equal(t, []string{"acme/web-0", "acme/web-1"}, st.Groups[0].Refs)
	require.Equal(t, "update terraform_data.app (1 attribute)", st.Groups[0].Summary)
	require.Equal(t, []string{"acme/web-2"}, st.Groups[1].Refs)
	require.Nil(t, st.Groups[0].ApprovedBy)
	for _, in := range st.Instances {
		require.NotNil(t, in.Awaiting, in.Ref.String())
		require.Empty(t, in.Awaiting.Hash, "the status shows shapes, not plan hashes")
	}
	require.Equal(t, st.Groups[1].Fingerprint, st.Instances[2].Awaiting.Fingerprint)
	require.ErrorContains(t, unknown.err, "--fingerprint 000000000000: no deploy of rollout ra waits with that plan shape")
	require.ErrorContains(t, unverified.err, "refused: the approval carries no verified identity")
}
