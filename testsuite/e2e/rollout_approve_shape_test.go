package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Approval once per plan shape, end to end through `slipway server` with people signed in at the
// real provider: alice's rollout sends acme/web a deploy that waits for approval; the rollout
// lists its plan shape; a fingerprint that names no shape is exit 2 naming --fingerprint; alice,
// who started it, may not approve it (exit 3, the policy's refusal); carol approves the shape once and the deploy goes
// ahead, approved on her behalf: the instance's approval log names carol and the rollout.
func TestRolloutApprovesAPlanShapeOnBehalfOfItsApprover(t *testing.T) {
	w := newPeople(t)
	e := w.e
	const ref, id = acmeWeb, "acme-shape"

	guarded := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\napproval: {policy: always}\n")
	w.as(w.alice, 0, "deploy", ref, "-f", guarded)
	w.as(w.carol, 0, "approve", ref, "--plan", awaitApproval(t, w, ref).Hash)
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded
	}, 2*time.Minute, 100*time.Millisecond)

	w.as(w.alice, 0, "rollout", "start", "--id", id, "--stack", "example", "--tenant", "acme", "--set", "greeting=shaped")
	awaitApproval(t, w, ref)
	var ro contract.RolloutStatus
	require.Eventually(t, func() bool {
		ro = rolloutStatus(t, e, id)
		return len(ro.Groups) == 1
	}, time.Minute, 100*time.Millisecond, "the instance told its rollout that the deploy waits")
	g := ro.Groups[0]
	require.Equal(t, []string{ref}, g.Refs)
	require.Nil(t, g.ApprovedBy)
	out := w.as(w.carol, 0, "rollout", "status", id).Stdout
	require.Contains(t, out, "awaits approval of plan shape "+g.Fingerprint)
	require.Contains(t, out, g.Fingerprint+"  1 instance(s): "+g.Summary+"  [waiting]")

	r := w.as(w.carol, 2, "rollout", "approve", id, "--fingerprint", "000000000000")
	require.Contains(t, r.Stderr, "--fingerprint 000000000000: no deploy of rollout "+id+" waits with that plan shape")
	// alice started it; the policy refuses her an approval of a rollout (platform-admins decide on
	// rollouts), and four eyes would too (workflows' TestRolloutApprovesAShapeOnBehalfOfItsApprover).
	r = w.as(w.alice, 3, "rollout", "approve", id, "--fingerprint", g.Fingerprint)
	require.Contains(t, r.Stderr, "refused")
	require.NotNil(t, e.Status(ref).Approval, "still waiting")

	w.as(w.carol, 0, "rollout", "approve", id, "--fingerprint", g.Fingerprint, "--reason", "as previewed")
	var st contract.Status
	require.Eventually(t, func() bool {
		st = e.Status(ref)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded && st.Approval == nil && st.Operation.Kind == lifecycle.OpDeploy
	}, 2*time.Minute, 100*time.Millisecond)
	i := slices.IndexFunc(st.ApprovalLog, func(a contract.ApprovalRecord) bool { return a.Source == contract.RolloutWorkflowID(id) })
	require.GreaterOrEqual(t, i, 0, "an approval from the rollout: %+v", st.ApprovalLog)
	rec := st.ApprovalLog[i]
	require.Equal(t, "carol", rec.Actor)
	require.NotNil(t, rec.By)
	require.Equal(t, "carol", rec.By.Name, "on carol's behalf")
	require.Contains(t, rec.Reason, "plan shape "+g.Fingerprint+" approved once for rollout/"+id+" by carol: as previewed")
	require.Eventually(t, func() bool { return rolloutStatus(t, e, id).Phase == contract.PhaseCompleted }, time.Minute, 100*time.Millisecond)
	ro = rolloutStatus(t, e, id)
	require.NotNil(t, ro.Groups[0].ApprovedBy)
	require.Equal(t, "carol", ro.Groups[0].ApprovedBy.Name)
}
