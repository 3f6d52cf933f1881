package workflows_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

var stuckLock = contract.Leftover{Kind: contract.LeftoverLock, ID: "lock-7", Detail: "state locked by lost-host pid 42"}

func unlock(id string) *request {
	return decision(lifecycle.DecisionResolve, contract.DecisionRequest{Actor: "dee", Reason: "worker host is gone", ForceUnlock: id})
}

// failedOnLock is a deploy that failed at tf-apply leaving stuckLock behind.
func failedOnLock(w *world) []*request {
	w.leftovers = []contract.Leftover{stuckLock}
	reqs := append(provisioned(), op(lifecycle.OpDeploy, contract.OperationRequest{}))
	reqs[0].arm = func() { w.failNext(contract.ActTerraformApply, 1) }
	return reqs
}

func TestResolveForceUnlockUnlocksAndResumes(t *testing.T) {
	w := newWorld(t)
	wrong := unlock("lock-8")
	viaRetry := decision(lifecycle.DecisionRetry, contract.DecisionRequest{ForceUnlock: "lock-7"})
	withTo := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Reason: "x", ForceUnlock: "lock-7", To: lifecycle.ConfigurationCreated})
	right := unlock("lock-7")
	reqs := failedOnLock(w)
	w.run(contract.Settings{}, append(reqs, wrong, viaRetry, withTo, right)...)
	require.Equal(t, lifecycle.DeploymentFailed, reqs[1].result.State)

	requireRejected(t, wrong.err, `--force-unlock "lock-8" is not the lock the failed operation left; its terraform-lock leftover is lock-7`)
	requireRejected(t, viaRetry.err, "goes with resolve, not retry")
	requireRejected(t, withTo.err, "does not take --to")

	require.NoError(t, right.err)
	require.Equal(t, contract.ResultSucceeded, right.result.Result)
	require.Equal(t, lifecycle.Deployed, right.result.State)
	require.Equal(t, []contract.UnlockInput{{Ref: recorded(ref), LockID: "lock-7"}}, w.unlocked, "one unlock, of the named lock")
	require.Equal(t, 2, w.called(contract.ActTerraformPlan), "the resumed attempt makes a fresh plan")
	require.Equal(t, 2, w.called(contract.ActTerraformApply))
	require.Equal(t, 1, w.called(contract.ActOpenMR), "the resumed attempt opened no MR")

	st := w.status(contract.OutputAll)
	require.Equal(t, 2, st.Operation.Attempt)
	require.Len(t, st.Decisions, 1, "rejected requests leave no record")
	require.Equal(t, contract.DecisionRecord{Decision: lifecycle.DecisionResolve, OperationID: st.Operation.ID, Actor: "dee",
		Reason: "worker host is gone", From: lifecycle.DeploymentFailed, To: lifecycle.Deploying, At: st.Decisions[0].At,
		ForceUnlock: "lock-7"}, st.Decisions[0])
}

func TestResolveForceUnlockNeedsALockLeftover(t *testing.T) {
	w := newWorld(t)
	archive := op(lifecycle.OpArchive, contract.OperationRequest{})
	reqs := append(deployed(), archive, unlock("lock-7"))
	reqs[1].arm = func() { w.failNext(contract.ActRemoveApp, 1) }
	w.run(contract.Settings{}, reqs...)
	requireRejected(t, reqs[3].err, `--force-unlock "lock-7": the failed operation left no terraform-lock leftover`)
	require.Equal(t, 0, w.called(contract.ActForceUnlock))
	require.Equal(t, lifecycle.ArchiveFailed, w.status("").State)
}

func TestFailedForceUnlockKeepsTheFailedStateAndRecordsWhy(t *testing.T) {
	w := newWorld(t)
	first := unlock("lock-7")
	reqs := failedOnLock(w)
	reqs[1].arm = func() { w.failNext(contract.ActForceUnlock, 1) }
	w.run(contract.Settings{}, append(reqs, first)...)

	require.Error(t, first.err, "the caller gets the unlock's error")
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(first.err, &appErr), "got %v", first.err)
	require.Contains(t, appErr.Error(), "force-unlock lock-7 failed, the instance stays DeploymentFailed: ForceUnlock exploded")
	require.Equal(t, 1, w.called(contract.ActTerraformApply), "nothing resumed")

	st := w.status(contract.OutputAll)
	require.Equal(t, lifecycle.DeploymentFailed, st.State)
	require.Equal(t, 1, st.Operation.Attempt)
	require.NotNil(t, st.Failure, "the failure and its leftovers stay on record")
	require.Len(t, st.Decisions, 1)
	d := st.Decisions[0]
	require.Equal(t, "lock-7", d.ForceUnlock)
	require.Equal(t, lifecycle.DeploymentFailed, d.To)
	require.Equal(t, "ForceUnlock exploded", d.Error)
}
