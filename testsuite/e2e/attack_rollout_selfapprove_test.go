package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Issue 36, attack 5, end to end through `slipway server` with people signed in at the real
// provider: alice (tenant acme) starts a rollout over acme's instances of a stack whose instance
// says `approval: {policy: always}`. The deploy the rollout sends is alice's request (on behalf
// of her, not the worker's own), so four eyes hold: alice may not approve it (exit 3,
// self-approval), and it waits until carol does.
func TestAttackRolloutSelfApproval(t *testing.T) {
	w := newPeople(t)
	e := w.e
	const ref = acmeWeb

	// acme/web asks for an approval of every change from now on: carol approves the tightening.
	guarded := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\napproval: {policy: always}\n")
	w.as(w.alice, 0, "deploy", ref, "-f", guarded)
	w.as(w.carol, 0, "approve", ref, "--plan", awaitApproval(t, w, ref).Hash)
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded
	}, 2*time.Minute, 100*time.Millisecond)

	w.as(w.alice, 0, "rollout", "start", "--id", "acme-greeting", "--stack", "example", "--tenant", "acme", "--set", "greeting=rolled")
	a := awaitApproval(t, w, ref)
	ro := rolloutStatus(t, e, "acme-greeting")
	require.NotNil(t, ro.Requester, "the rollout records who started it")
	require.Equal(t, "alice", ro.Requester.Name)
	require.Equal(t, "rollout/acme-greeting", e.Status(ref).Rollout, "the rollout sent the deploy")
	require.NotNil(t, a.Requester, "the rollout's deploy names who asked")
	require.Equal(t, identity.Person, a.Requester.Kind)
	require.Equal(t, "alice", a.Requester.Name, "the deploy is alice's request, not the worker's")

	r := w.as(w.alice, 3, "approve", ref, "--plan", a.Hash)
	require.Contains(t, r.Stderr, "self-approval")
	st := e.Status(ref)
	require.NotNil(t, st.Approval, "still waiting")
	require.Empty(t, st.Approval.Approvals, "alice's approval did not count")

	w.as(w.carol, 0, "approve", ref, "--plan", a.Hash)
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded && st.Approval == nil
	}, 2*time.Minute, 100*time.Millisecond)
}

// awaitApproval waits for ref's operation to await approval and returns the wait, as the dev key
// holder (a platform admin) sees it.
func awaitApproval(t *testing.T, w *people, ref string) contract.ApprovalWait {
	t.Helper()
	var a *contract.ApprovalWait
	require.Eventually(t, func() bool {
		a = w.e.Status(ref).Approval
		return a != nil && a.Hash != ""
	}, 2*time.Minute, 100*time.Millisecond)
	return *a
}
