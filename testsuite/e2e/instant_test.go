package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// The bench measures orchestration over instant adapters; this shows every pipeline runs on them
// on the real dev server and ends where the real adapters end, so the bench times real lifecycles.
func TestInstantAdaptersRunTheWholeLifecycle(t *testing.T) {
	e, acts := instantEnv(t, nil)

	ref := contract.Ref{Tenant: "instant", Name: "web"}
	cfg := func(replicas string) string {
		return "stack: example\nparameters:\n  greeting: hello\n  replicas: " + replicas + "\n"
	}
	for _, s := range []struct {
		op     lifecycle.Operation
		config string
		want   lifecycle.State
		check  func(contract.OperationResult)
	}{
		{lifecycle.OpProvision, cfg("1"), lifecycle.ConfigurationCreated, nil},
		{lifecycle.OpDeploy, "", lifecycle.Deployed, nil},
		{lifecycle.OpPlan, "", lifecycle.Deployed, func(r contract.OperationResult) {
			require.NotNil(t, r.Plan)
			assert.True(t, r.Plan.NoChanges, "nothing changed since the deploy")
		}},
		{lifecycle.OpPlan, cfg("2"), lifecycle.Deployed, func(r contract.OperationResult) {
			require.NotNil(t, r.Plan)
			assert.Positive(t, r.Plan.Change, "a changed config plans a change")
		}},
		{lifecycle.OpDeploy, cfg("2"), lifecycle.Deployed, nil},
		{lifecycle.OpArchive, "", lifecycle.Archived, nil},
		{lifecycle.OpDeploy, "", lifecycle.Deployed, nil},
		{lifecycle.OpDestroy, "", lifecycle.Destroyed, nil},
		{lifecycle.OpDeprovision, "", lifecycle.Deprovisioned, nil},
	} {
		h, err := e.Client.Submit(context.Background(), ref, s.op, contract.OperationRequest{ConfigYAML: s.config,
			Confirm: s.op == lifecycle.OpDeprovision}, "")
		require.NoError(t, err, s.op)
		res, err := h.Get(context.Background())
		require.NoError(t, err, s.op)
		require.Equal(t, contract.ResultSucceeded, res.Result, "%s: %+v", s.op, res.Failure)
		assert.Equal(t, s.want, res.State, s.op)
		if s.check != nil {
			s.check(res)
		}
	}
	gone, err := acts.Deployer.Status(context.Background(), deploy.App{Ref: ref})
	require.NoError(t, err)
	assert.False(t, gone.Deployed, "deprovision removed the app")
}

// A fresh provision+deploy records one version marker per run, verified-requests, on which every
// change rides, where it recorded one per change ID (with a search-attribute upsert each) before
// issue 40; and its whole history, the instance's and its pipelines', stays within the budget
// docs/performance.md explains event by event.
func TestAFreshLifecycleRecordsOneVersionMarkerPerRun(t *testing.T) {
	e, _ := instantEnv(t, nil)
	ref := contract.Ref{Tenant: "instant", Name: "events"}
	for _, s := range []struct {
		op     lifecycle.Operation
		config string
	}{{lifecycle.OpProvision, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"}, {lifecycle.OpDeploy, ""}} {
		h, err := e.Client.Submit(context.Background(), ref, s.op, contract.OperationRequest{ConfigYAML: s.config}, "")
		require.NoError(t, err, s.op)
		res, err := h.Get(context.Background())
		require.NoError(t, err, s.op)
		require.Equal(t, contract.ResultSucceeded, res.Result, "%s: %+v", s.op, res.Failure)
	}
	markers := map[string]int{} // workflow ID -> version markers
	signals := map[string]int{} // "sent"/"received" -> step signals; "pipeline priority K F" -> pipelines
	total := historyTree(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "", markers, signals)
	require.Len(t, markers, 3, "the instance, its provision and its deploy")
	for id, n := range markers {
		assert.Equal(t, 1, n, "version markers of %s", id)
	}
	t.Logf("%d history events; step signals: %v", total, signals)
	// The workers of the steps' first activities send the start signals, the pipelines none; a
	// worker tells a start only once its step has run contract.StepStartDelay or failed, so on
	// instant adapters the steps reach the instance in the next signal or the pipeline's result
	// (before the delay, it received 7). Any it does receive it accepts (a refusal would be in its events).
	assert.Zero(t, signals["sent"], "step signals the pipelines sent")
	assert.Less(t, signals["received"], 4, "step signals the instance received (only a step slower than the delay tells)")
	events := e.MustCLI(0, "events", ref.String()).Stdout
	assert.NotContains(t, events, "refused")
	for _, step := range []string{contract.OpenMR, contract.MergeMR, contract.TFApply, contract.DeployApp} {
		assert.Contains(t, events, "step "+step+" "+contract.StepDone, "the instance's events show each step, from the results")
	}
	// A person's requests: their pipelines go first, with the tenant as the fairness key.
	assert.Equal(t, 2, signals["pipeline priority 1 instant"], "pipelines at a person's priority")
	// 107 here, and 4 more for each step a loaded machine keeps past the delay (135 when every start
	// was told, 158 to 164 before the workers sent the start signals, 215 before issue 40).
	assert.LessOrEqual(t, total, 120, "history events of one provision+deploy")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "lifecycle-events")
}

// historyTree counts the events of one run and of the children it started, each run's version
// markers, and the step signals sent (by workflows) and received.
func historyTree(t *testing.T, c sdkclient.Client, id, run string, markers, signals map[string]int) int {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	markers[id] += 0
	n := 0
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		n++
		if ev.GetMarkerRecordedEventAttributes().GetMarkerName() == "Version" {
			markers[id]++
		}
		if ev.GetSignalExternalWorkflowExecutionInitiatedEventAttributes().GetSignalName() == contract.SignalStep {
			signals["sent"]++
		}
		if ev.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == contract.SignalStep {
			signals["received"]++
		}
		if a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes(); a != nil {
			signals[fmt.Sprintf("pipeline priority %d %s", a.GetPriority().GetPriorityKey(), a.GetPriority().GetFairnessKey())]++
		}
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			n += historyTree(t, c, a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId(), markers, signals)
		}
	}
	return n
}
