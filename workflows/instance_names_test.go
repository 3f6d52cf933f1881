package workflows_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/names"
)

// Provision derives and claims the names once, records them, and every step after gets them;
// deprovision releases them.
func TestNamesAreClaimedAtProvisionCarriedAndReleasedAtDeprovision(t *testing.T) {
	w := newWorld(t)
	want := names.Derive(ref.Tenant, ref.Name)
	deployed := deployed()
	w.run(contract.Settings{}, append(deployed, op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true}))...)
	require.Equal(t, []contract.NamesInput{{Ref: ref, Names: want}}, w.claims, "claimed once, before the names were recorded")
	for _, act := range []string{contract.ActOpenMR, contract.ActTerraformPlan, contract.ActDeployApp} {
		require.Equal(t, &want, w.refs[act].Names, "%s gets the recorded names", act)
	}
	require.Len(t, w.releases, 1)
	require.Equal(t, want, w.releases[0].Names)
	require.Nil(t, w.status("").Names, "released names are no longer the instance's")
}

func TestStatusShowsTheRecordedNames(t *testing.T) {
	w := newWorld(t)
	w.run(contract.Settings{}, provisioned()...)
	want := names.Derive(ref.Tenant, ref.Name)
	require.Equal(t, &want, w.status("").Names)
	require.Empty(t, w.releases)
}

// A name another instance holds refuses the provision: the update fails NotAllowed naming the
// other instance, no state moves, no pipeline starts and no names are recorded.
func TestProvisionIsRefusedWhenAnotherInstanceHoldsAName(t *testing.T) {
	w := newWorld(t)
	w.takenBy = "acme-w/eb"
	create := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML})
	w.run(contract.Settings{}, create)
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(create.err, &appErr), "got %v", create.err)
	require.Equal(t, contract.ErrNotAllowed, appErr.Type())
	require.Contains(t, appErr.Message(), "already used by instance acme-w/eb")
	st := w.status("")
	require.Equal(t, lifecycle.NoConfiguration, st.State)
	require.Nil(t, st.Operation, "no operation was started")
	require.Nil(t, st.Names)
	require.Equal(t, 0, w.called(contract.ActOpenMR), "no pipeline ran")
	require.Equal(t, 1, w.called(contract.ActClaimNames))
	require.NoError(t, w.env.GetWorkflowError(), "nothing to own: the entity closed")
}

// A failed provision abandoned back to NoConfiguration holds nothing: its names are released.
func TestAbandonedProvisionReleasesItsNames(t *testing.T) {
	w := newWorld(t)
	create := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML})
	abandon := decision(lifecycle.DecisionAbandon, contract.DecisionRequest{Reason: "wrong tenant"})
	w.failNext(contract.ActMergeMR, 1)
	w.run(contract.Settings{}, create, abandon)
	require.Equal(t, lifecycle.NoConfiguration, abandon.result.State)
	require.Len(t, w.releases, 1)
}

// An instance provisioned before names were recorded keeps the names of the old rule.
func TestAnInstanceFromBeforeKeepsItsLegacyNames(t *testing.T) {
	w := newWorld(t)
	old := contract.Ref{Tenant: "a-b", Name: "c"}
	state := contract.InstanceState{Ref: old, State: lifecycle.Deployed, Started: true, Epoch: "e", Seq: 2}
	var st contract.Status
	w.env.RegisterDelayedCallback(func() {
		v, err := w.env.QueryWorkflow(contract.QueryStatus, contract.StatusRequest{})
		require.NoError(t, err)
		require.NoError(t, v.Get(&st))
		w.env.CancelWorkflow()
	}, time.Millisecond)
	w.env.ExecuteWorkflow(contract.InstanceWorkflowName, contract.InstanceInput{Ref: old, State: &state})
	legacy := names.Legacy("a-b", "c")
	require.Equal(t, &legacy, st.Names)
	require.Equal(t, "a-b-c", st.Names.Namespace)
	require.Empty(t, w.claims, "a parked run claims nothing: its next request does (below)")
}

// recorded is r with the names its provision records.
func recorded(r contract.Ref) contract.Ref {
	n := names.Derive(r.Tenant, r.Name)
	r.Names = &n
	return r
}

// Names claimed once stay claimed: a request to an instance whose names are claimed (after
// continue-as-new) claims nothing again, while one from before this change claims what it
// recorded, once, at its next request, and no sooner: a parked instance's history stays short.
func TestRecordedNamesAreClaimedOnce(t *testing.T) {
	for _, claimed := range []bool{true, false} {
		w := newWorld(t)
		ref := recorded(contract.Ref{Tenant: "acme", Name: "web"})
		state := contract.InstanceState{Ref: ref, State: lifecycle.Deployed, Started: true, Epoch: "e", Seq: 2,
			Revision: "r", DeployedRevision: "r", NamesClaimed: claimed}
		first, second := op(lifecycle.OpPlan, contract.OperationRequest{}), op(lifecycle.OpPlan, contract.OperationRequest{})
		w.env.RegisterDelayedCallback(func() {
			require.Empty(t, w.claims, "nothing claimed before a request")
			w.send(first, "plan-1")
		}, time.Second)
		w.env.RegisterDelayedCallback(func() { w.send(second, "plan-2") }, 10*time.Second)
		w.env.RegisterDelayedCallback(func() { w.env.CancelWorkflow() }, time.Minute)
		w.env.ExecuteWorkflow(contract.InstanceWorkflowName, contract.InstanceInput{Ref: ref, State: &state})
		require.NoError(t, first.err)
		require.NoError(t, second.err)
		if claimed {
			require.Empty(t, w.claims)
			continue
		}
		require.Equal(t, []contract.NamesInput{{Ref: ref, Names: *ref.Names, Legacy: true}}, w.claims, "claimed once")
	}
}

// An instance whose recorded names cannot be claimed at a request (here: held elsewhere for a
// moment) still runs that operation, and claims them at its next request.
func TestRecordedNamesAreClaimedAtTheNextRequest(t *testing.T) {
	w := newWorld(t)
	old := recorded(contract.Ref{Tenant: "acme", Name: "web"})
	state := contract.InstanceState{Ref: old, State: lifecycle.Deployed, Started: true, Epoch: "e", Seq: 2, Revision: "r", DeployedRevision: "r"}
	w.takenBy = "x/y"
	first, second := op(lifecycle.OpPlan, contract.OperationRequest{}), op(lifecycle.OpPlan, contract.OperationRequest{})
	w.env.RegisterDelayedCallback(func() { w.send(first, "plan-1") }, time.Second)
	w.env.RegisterDelayedCallback(func() {
		w.mu.Lock()
		w.takenBy = ""
		w.mu.Unlock()
		w.send(second, "plan-2")
	}, 10*time.Second)
	w.env.RegisterDelayedCallback(func() { w.env.CancelWorkflow() }, time.Minute)
	w.env.ExecuteWorkflow(contract.InstanceWorkflowName, contract.InstanceInput{Ref: old, State: &state})
	require.NoError(t, first.err, "a refused claim does not hold the operation")
	require.NoError(t, second.err)
	require.Len(t, w.claims, 2, "refused at the first request, claimed at the second")
	require.Equal(t, contract.NamesInput{Ref: old, Names: *old.Names, Legacy: true}, w.claims[1])
}
