package workflows_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func TestFullLifecycleVisitsEveryHappyTransition(t *testing.T) {
	w := newWorld(t)
	reqs := []*request{
		op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML, Actor: "ann"}),
		op(lifecycle.OpPlan, contract.OperationRequest{}),
		op(lifecycle.OpDeploy, contract.OperationRequest{}),
		op(lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: webYAML + "  replicas: 2\n"}),
		op(lifecycle.OpArchive, contract.OperationRequest{}),
		op(lifecycle.OpPlan, contract.OperationRequest{}),
		op(lifecycle.OpDeploy, contract.OperationRequest{}),
		op(lifecycle.OpDestroy, contract.OperationRequest{}),
		op(lifecycle.OpPlan, contract.OperationRequest{}),
		op(lifecycle.OpDeploy, contract.OperationRequest{}),
		op(lifecycle.OpArchive, contract.OperationRequest{}),
		op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true}),
	}
	w.run(contract.Settings{}, reqs...)
	want := []lifecycle.State{
		lifecycle.ConfigurationCreated, lifecycle.ConfigurationCreated, lifecycle.Deployed, lifecycle.Deployed,
		lifecycle.Archived, lifecycle.Archived, lifecycle.Deployed, lifecycle.Destroyed, lifecycle.Destroyed,
		lifecycle.Deployed, lifecycle.Archived, lifecycle.Deprovisioned,
	}
	for i, r := range reqs {
		require.NoError(t, r.err, "request %d %s", i, r.name)
		require.Equal(t, contract.ResultSucceeded, r.result.Result, "request %d %s", i, r.name)
		require.Equal(t, want[i], r.result.State, "request %d %s", i, r.name)
	}
	require.NoError(t, w.env.GetWorkflowError(), "deprovisioned instance closes")
	// One MR per config change: create, update, each archive (archived: true), deprovision.
	require.Equal(t, 5, w.called(contract.ActOpenMR))
	require.Equal(t, 5, w.called(contract.ActMergeMR))
	require.Equal(t, 4, w.called(contract.ActTerraformApply))
	require.Equal(t, 2, w.called(contract.ActTerraformDestroy), "destroy and deprovision")
	require.Equal(t, 4, w.called(contract.ActBootstrapSecrets), "every deploy makes sure its secrets exist")
	require.Equal(t, 1, w.called(contract.ActForgetSecrets), "deprovision deletes them")
	require.Equal(t, 0, w.called(contract.ActCollectLeftovers))
	st := w.status(contract.OutputAll)
	require.Equal(t, lifecycle.Deprovisioned, st.State)
	require.Len(t, st.History, 11)
	require.Equal(t, "ann", st.History[0].Actor)
}

func TestPlanReportsWithoutChangingState(t *testing.T) {
	w := newWorld(t)
	plan := op(lifecycle.OpPlan, contract.OperationRequest{ConfigYAML: webYAML + "  replicas: 2\n"})
	w.run(contract.Settings{},
		op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}),
		op(lifecycle.OpDeploy, contract.OperationRequest{}), plan)
	require.NoError(t, plan.err)
	require.Equal(t, lifecycle.Deployed, plan.result.State)
	require.Equal(t, 2, plan.result.Plan.Add)
	require.Contains(t, plan.result.Diff, "+replicas: 2")
	require.Equal(t, 1, w.called(contract.ActTerraformApply), "plan applies nothing")
	require.Equal(t, 1, w.called(contract.ActOpenMR), "plan opens no MR")
}

func TestEachFailureRecordsStepAndLeftovers(t *testing.T) {
	cases := []struct {
		name     string
		before   []*request
		req      *request
		activity string
		step     string
		failed   lifecycle.State
	}{
		{"provision", nil, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}),
			contract.ActMergeMR, contract.MergeMR, lifecycle.ProvisioningFailed},
		{"deploy", provisioned(), op(lifecycle.OpDeploy, contract.OperationRequest{}),
			contract.ActTerraformApply, contract.TFApply, lifecycle.DeploymentFailed},
		{"archive", deployed(), op(lifecycle.OpArchive, contract.OperationRequest{}),
			contract.ActRemoveApp, contract.RemoveApp, lifecycle.ArchiveFailed},
		{"destroy", deployed(), op(lifecycle.OpDestroy, contract.OperationRequest{}),
			contract.ActTerraformDestroy, contract.TFDestroy, lifecycle.DestroyFailed},
		{"deprovision", deployed(), op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true}),
			contract.ActMergeMR, contract.MergeMR, lifecycle.DeprovisioningFailed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.leftovers = []contract.Leftover{{Kind: "merge-request", ID: "slipway/acme/web/x", Detail: "open, not merged"}}
			failAfter(w, tc.activity, tc.before)
			w.run(contract.Settings{}, append(tc.before, tc.req)...)
			require.NoError(t, tc.req.err)
			require.Equal(t, contract.ResultFailed, tc.req.result.Result)
			require.Equal(t, tc.failed, tc.req.result.State)
			f := tc.req.result.Failure
			require.NotNil(t, f)
			require.Equal(t, tc.step, f.Step)
			require.Contains(t, f.Error, "exploded")
			require.Equal(t, []contract.Leftover{w.leftovers[0], {Kind: "failed-step", ID: tc.step}}, f.Leftovers)
			st := w.status(contract.OutputSummary)
			require.Equal(t, tc.failed, st.State)
			require.Equal(t, tc.step, st.Failure.Step)
			require.Equal(t, tc.step, st.Operation.Step)
			if tc.failed == lifecycle.DeploymentFailed || tc.failed == lifecycle.ProvisioningFailed {
				require.Equal(t, []lifecycle.Operation{lifecycle.OpDestroy, lifecycle.OpDeprovision}, st.Allowed,
					"a failed instantiation allows the teardowns besides the decisions")
			} else {
				require.Empty(t, st.Allowed, "a failed teardown allows no operation, only decisions")
			}
		})
	}
}

// failAfter arms the failure once the requests before the one under test are done.
func failAfter(w *world, activity string, before []*request) {
	if len(before) == 0 {
		w.failNext(activity, 1)
		return
	}
	last := before[len(before)-1]
	last.arm = func() { w.failNext(activity, 1) }
}

func provisioned() []*request {
	return []*request{op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML})}
}

func deployed() []*request {
	return append(provisioned(), op(lifecycle.OpDeploy, contract.OperationRequest{}))
}

func TestRetryContinuesFromTheFailedStepWithoutRepeatingSideEffects(t *testing.T) {
	w := newWorld(t)
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: webYAML + "  replicas: 2\n"})
	reqs := append(provisioned(), deploy, decision(lifecycle.DecisionRetry, contract.DecisionRequest{Actor: "bob"}))
	reqs[0].arm = func() { w.failNext(contract.ActTerraformApply, 1) }
	w.run(contract.Settings{}, reqs...)
	require.Equal(t, lifecycle.DeploymentFailed, deploy.result.State)
	retry := reqs[2]
	require.NoError(t, retry.err)
	require.Equal(t, lifecycle.Deployed, retry.result.State)
	require.Equal(t, contract.ResultSucceeded, retry.result.Result)
	require.Equal(t, 2, w.called(contract.ActOpenMR), "provision + update; the retry opened no MR")
	require.Equal(t, 2, w.called(contract.ActMergeMR), "the retry merged nothing")
	require.Equal(t, 2, w.called(contract.ActTerraformPlan), "terraform re-plans on retry")
	st := w.status(contract.OutputAll)
	require.Equal(t, 2, st.Operation.Attempt)
	skipped := map[string]bool{}
	for _, s := range st.Operation.Steps {
		if s.Attempt == 2 && s.Status == contract.StepSkipped {
			skipped[s.Name] = true
		}
	}
	require.Equal(t, map[string]bool{contract.Validate: true, contract.OpenMR: true, contract.MergeMR: true}, skipped)
	require.Len(t, st.Decisions, 1)
	require.Equal(t, contract.DecisionRecord{Decision: lifecycle.DecisionRetry, OperationID: st.Operation.ID, Actor: "bob",
		From: lifecycle.DeploymentFailed, To: lifecycle.Deploying, At: st.Decisions[0].At}, st.Decisions[0])
}

func TestResolveAndAbandonReturnToLastGoodStateWithARecord(t *testing.T) {
	t.Run("resolve needs a reason", func(t *testing.T) {
		w := newWorld(t)
		noReason := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Actor: "ann"})
		resolve := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Actor: "ann", Reason: "unlocked by hand"})
		reqs := append(deployed(), op(lifecycle.OpArchive, contract.OperationRequest{}), noReason, resolve)
		reqs[1].arm = func() { w.failNext(contract.ActRemoveApp, 1) }
		w.run(contract.Settings{}, reqs...)
		requireRejected(t, noReason.err, "needs a reason")
		require.NoError(t, resolve.err)
		require.Equal(t, lifecycle.Deployed, resolve.result.State)
		require.Equal(t, contract.ResultResolved, resolve.result.Result)
		st := w.status(contract.OutputAll)
		require.Equal(t, "unlocked by hand", st.Decisions[0].Reason)
		require.Equal(t, lifecycle.ArchiveFailed, st.Decisions[0].From)
	})
	t.Run("resolve to the target state", func(t *testing.T) {
		w := newWorld(t)
		resolve := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Reason: "archived by hand", To: lifecycle.Archived})
		bad := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Reason: "x", To: lifecycle.Destroyed})
		reqs := append(deployed(), op(lifecycle.OpArchive, contract.OperationRequest{}), bad, resolve)
		reqs[1].arm = func() { w.failNext(contract.ActRemoveApp, 1) }
		w.run(contract.Settings{}, reqs...)
		requireRejected(t, bad.err, "resolve --to must be Deployed")
		require.Equal(t, lifecycle.Archived, resolve.result.State)
	})
	t.Run("abandon keeps the leftovers on record", func(t *testing.T) {
		w := newWorld(t)
		w.leftovers = []contract.Leftover{{Kind: "terraform-lock", ID: "lock-1"}}
		abandon := decision(lifecycle.DecisionAbandon, contract.DecisionRequest{Actor: "cy", Reason: "decommissioning"})
		reqs := append(provisioned(), op(lifecycle.OpDeploy, contract.OperationRequest{}), abandon)
		reqs[0].arm = func() { w.failNext(contract.ActTerraformApply, 1) }
		w.run(contract.Settings{}, reqs...)
		require.NoError(t, abandon.err)
		require.Equal(t, lifecycle.ConfigurationCreated, abandon.result.State)
		require.Equal(t, contract.ResultAbandoned, abandon.result.Result)
		st := w.status(contract.OutputAll)
		require.Contains(t, st.Abandoned, contract.Leftover{Kind: "terraform-lock", ID: "lock-1"})
		require.Equal(t, lifecycle.DecisionAbandon, st.Decisions[0].Decision)
	})
	t.Run("a failed provision resolved closes the empty instance", func(t *testing.T) {
		w := newWorld(t)
		create := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML})
		resolve := decision(lifecycle.DecisionResolve, contract.DecisionRequest{Reason: "closed the MR"})
		w.failNext(contract.ActMergeMR, 1)
		w.run(contract.Settings{}, create, resolve)
		require.Equal(t, lifecycle.ProvisioningFailed, create.result.State)
		require.Equal(t, lifecycle.NoConfiguration, resolve.result.State)
		require.NoError(t, w.env.GetWorkflowError(), "nothing left to own: the entity closed")
	})
}

func TestRejectsWhatTheStateDoesNotAllow(t *testing.T) {
	w := newWorld(t)
	archive := op(lifecycle.OpArchive, contract.OperationRequest{})
	createAgain := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML})
	deprovision := op(lifecycle.OpDeprovision, contract.OperationRequest{})
	retry := decision(lifecycle.DecisionRetry, contract.DecisionRequest{})
	w.run(contract.Settings{}, append(provisioned(), archive, createAgain, deprovision, retry)...)
	requireRejected(t, archive.err, "archive is not allowed in state ConfigurationCreated (allowed: deploy, plan, deprovision)")
	requireRejected(t, createAgain.err, "provision is not allowed in state ConfigurationCreated")
	requireRejected(t, deprovision.err, "deprovision is final")
	requireRejected(t, retry.err, "retry is only allowed in a <Step>Failed state")
	require.Equal(t, lifecycle.ConfigurationCreated, w.status("").State)
	require.Equal(t, 1, w.called(contract.ActOpenMR))
}

func TestBusyInstanceRejectsASecondOperation(t *testing.T) {
	w := newWorld(t)
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	again := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deploy.accept = func() { w.env.RegisterDelayedCallback(func() { w.send(again, "concurrent") }, 0) }
	w.run(contract.Settings{}, append(provisioned(), deploy)...)
	requireRejected(t, again.err, "is busy")
	require.Equal(t, lifecycle.Deployed, deploy.result.State)
}

// A teardown during a deploy is accepted (PreTerminate): the deploy is stopped, here before it
// changed anything, so it goes back to ConfigurationCreated; then the teardown runs from there,
// or says there is nothing to tear down.
func TestTeardownDuringADeployStopsItFirst(t *testing.T) {
	w := newWorld(t)
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	destroy := op(lifecycle.OpDestroy, contract.OperationRequest{})
	deploy.accept = func() { w.env.RegisterDelayedCallback(func() { w.send(destroy, "concurrent") }, 0) }
	w.run(contract.Settings{}, append(provisioned(), deploy)...)
	require.Equal(t, contract.ResultCancelled, deploy.result.Result)
	require.Equal(t, lifecycle.ConfigurationCreated, deploy.result.State, "nothing was changed: back to the last good state")
	require.Contains(t, deploy.result.Failure.Error, "stopped for destroy")
	requireRejected(t, destroy.err, "where destroy has nothing to tear down")

	w = newWorld(t)
	deploy = op(lifecycle.OpDeploy, contract.OperationRequest{})
	deprovision := op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true})
	deploy.accept = func() { w.env.RegisterDelayedCallback(func() { w.send(deprovision, "concurrent") }, 0) }
	w.run(contract.Settings{}, append(provisioned(), deploy)...)
	require.NoError(t, deprovision.err)
	require.Equal(t, contract.ResultCancelled, deploy.result.Result)
	require.Equal(t, lifecycle.Deprovisioned, deprovision.result.State)
}

func TestInvalidConfigChangesNothing(t *testing.T) {
	w := newWorld(t)
	create := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML + "  bogus: 1\n"})
	w.run(contract.Settings{}, create)
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(create.err, &appErr), "got %v", create.err)
	require.Equal(t, contract.ErrInvalidConfig, appErr.Type())
	var fields []contract.FieldError
	require.NoError(t, appErr.Details(&fields))
	require.Equal(t, "parameters.bogus", fields[0].Field)
	require.Equal(t, 0, w.called(contract.ActOpenMR))
	require.Equal(t, lifecycle.NoConfiguration, w.status("").State)
	require.Nil(t, w.status("").Operation, "no operation was started")
}

func TestContinuesAsNewWhenIdle(t *testing.T) {
	w := newWorld(t)
	w.run(contract.Settings{ContinueAsNewAfter: 2}, deployed()...)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(w.env.GetWorkflowError(), &can), "got %v", w.env.GetWorkflowError())
	require.Equal(t, contract.InstanceWorkflowName, can.WorkflowType.Name)
}

func TestStatusShapes(t *testing.T) {
	w := newWorld(t)
	w.run(contract.Settings{}, deployed()...)
	sum := w.status(contract.OutputSummary)
	require.Equal(t, map[string]int{"Pending": 2}, sum.RsyncStatus)
	require.Nil(t, sum.Resources)
	require.Equal(t, []lifecycle.Operation{lifecycle.OpDeploy, lifecycle.OpPlan, lifecycle.OpArchive,
		lifecycle.OpDestroy, lifecycle.OpDeprovision}, sum.Allowed)
	ready := sum.Conditions[2]
	require.Equal(t, lifecycle.CondReady, ready.Type)
	require.NotEqual(t, lifecycle.ConditionTrue, ready.Status, "deployer none never makes an instance Ready")
	all := w.status(contract.OutputAll)
	require.Equal(t, map[string]int{"Unknown": 2}, all.ClusterStatus)
	require.Len(t, all.Resources, 1)
	require.Equal(t, "web", all.Resources[0].App)
	require.Len(t, all.Resources[0].Clusters[0].Resources, 2)
	v, err := w.env.QueryWorkflow(contract.QueryStatus, contract.StatusRequest{Output: "all", Resource: "acme-web"})
	require.NoError(t, err)
	var filtered contract.Status
	require.NoError(t, v.Get(&filtered))
	require.Equal(t, map[string]int{"Pending": 1}, filtered.RsyncStatus)
	_, err = w.env.QueryWorkflow(contract.QueryStatus, contract.StatusRequest{Output: "everything"})
	require.ErrorContains(t, err, "output")
}

func requireRejected(t *testing.T, err error, contains string) {
	t.Helper()
	require.Error(t, err)
	require.Contains(t, err.Error(), contains)
}

func TestDeprovisionFromEveryAllowedState(t *testing.T) {
	deprovision := func() *request {
		return op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true})
	}
	for name, before := range map[string][]*request{
		"ConfigurationCreated": provisioned(),
		"Deployed":             deployed(),
		"Archived":             append(deployed(), op(lifecycle.OpArchive, contract.OperationRequest{})),
		"Destroyed":            append(deployed(), op(lifecycle.OpDestroy, contract.OperationRequest{})),
	} {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			last := deprovision()
			w.run(contract.Settings{}, append(before, last)...)
			require.Equal(t, lifecycle.State(name), before[len(before)-1].result.State)
			require.NoError(t, last.err)
			require.Equal(t, lifecycle.Deprovisioned, last.result.State)
			require.NoError(t, w.env.GetWorkflowError(), "a deprovisioned instance's workflow completes")
		})
	}
}

// An apply cut short after terraform saved state leaves its plan stale: the pipeline plans what is
// left, once, and applies that, instead of stopping in DeploymentFailed for an operator.
func TestStalePlanIsPlannedAgainOnce(t *testing.T) {
	w := newWorld(t)
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	w.failType[contract.ActTerraformApply] = contract.ErrStalePlan
	deploy.accept = func() { w.failNext(contract.ActTerraformApply, 1) }
	twice := op(lifecycle.OpDeploy, contract.OperationRequest{})
	twice.accept = func() { w.failNext(contract.ActTerraformApply, 2) }
	w.run(contract.Settings{}, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}), deploy, twice)
	require.NoError(t, deploy.err)
	require.Equal(t, lifecycle.Deployed, deploy.result.State)
	require.Equal(t, lifecycle.DeploymentFailed, twice.result.State, "a plan stale again is not retried forever")
	require.Equal(t, contract.ErrStalePlan, twice.result.Failure.Type)
	require.Equal(t, 4, w.called(contract.ActTerraformPlan), "each deploy plans, then plans once more")
	require.Equal(t, 4, w.called(contract.ActTerraformApply))
}
