package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// A finished destroy pipeline, started again from its own start event (input and sealed header
// exactly as in history, under the same workflow ID), or Reset to its first workflow task,
// changes nothing once the instance runs another operation: every state-changing step asks the
// instance for its current operation's pipeline run and refuses any other.
func TestAttackReplayedPipelineStartChangesNothing(t *testing.T) {
	e := testsuite.NewEnv(t)
	const ref = "fence/web"
	r := contract.Ref{Tenant: "fence", Name: "web"}
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	e.MustCLI(0, "destroy", ref, "--wait")
	destroyed := e.Status(ref)
	require.Equal(t, lifecycle.Destroyed, destroyed.State)
	pipeline := destroyed.Operation.Pipeline
	e.MustCLI(0, "deploy", ref, "--wait")
	before := e.Status(ref)
	require.Equal(t, lifecycle.Deployed, before.State)
	infra, merges := e.Resources(r), testsuite.Merges(t, e.GitOpsRepo, "instances/fence/web")
	require.NotEmpty(t, infra)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	svc := e.Client.Temporal.WorkflowService()
	first, start := latestHistory(ctx, t, e, pipeline)
	instance, _ := latestHistory(ctx, t, e, contract.InstanceWorkflowID(r))
	// The fencing adds no event: create, deploy, destroy and deploy cost what they did.
	t.Logf("history events: instance %d (create, deploy, destroy, deploy), destroy pipeline %d", len(instance), len(first))
	unchanged := func(what string) {
		t.Helper()
		st := e.Status(ref)
		require.Equal(t, lifecycle.Deployed, st.State, what)
		require.Equal(t, before.Operation.ID, st.Operation.ID, what)
		require.Equal(t, infra, e.Resources(r), "%s: terraform state unchanged", what)
		require.Equal(t, merges, testsuite.Merges(t, e.GitOpsRepo, "instances/fence/web"), "%s: no new merge", what)
	}
	refused := func(runID, what string) {
		t.Helper()
		err := e.Client.Temporal.GetWorkflow(ctx, pipeline, runID).Get(ctx, nil)
		require.Error(t, err, "%s: the run fails", what)
		require.ErrorContains(t, err, "is not the current operation", what)
		unchanged(what)
	}

	// A Reset of the finished destroy pipeline to its first workflow task.
	var task int64
	for _, ev := range first {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
			task = ev.GetEventId()
			break
		}
	}
	reset, err := svc.ResetWorkflowExecution(ctx, &workflowservice.ResetWorkflowExecutionRequest{
		Namespace: "default", WorkflowExecution: &commonpb.WorkflowExecution{WorkflowId: pipeline, RunId: start.GetOriginalExecutionRunId()},
		WorkflowTaskFinishEventId: task, RequestId: uuid.NewString(), Reason: "attack: run the destroy again",
	})
	require.NoError(t, err)
	refused(reset.GetRunId(), "reset")

	// The start event copied exactly, started again under the same workflow ID.
	copied, err := svc.StartWorkflowExecution(ctx, &workflowservice.StartWorkflowExecutionRequest{
		Namespace: "default", WorkflowId: pipeline, WorkflowType: start.GetWorkflowType(),
		TaskQueue: &taskqueuepb.TaskQueue{Name: start.GetTaskQueue().GetName(), Kind: enumspb.TASK_QUEUE_KIND_NORMAL},
		Input:     start.GetInput(), Header: start.GetHeader(), WorkflowRunTimeout: start.GetWorkflowRunTimeout(),
		WorkflowTaskTimeout: start.GetWorkflowTaskTimeout(), Identity: "mallory", RequestId: uuid.NewString(),
		WorkflowIdReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	})
	require.NoError(t, err)
	refused(copied.GetRunId(), "copied start")
}

// A drift sweep whose start claims a Temporal Schedule started it (search attribute
// TemporalScheduledById, which any caller may set) skips attestation; its steps then ask the
// schedule, which did not start it, and refuse.
func TestAttackScheduleAttributeSweepIsRefused(t *testing.T) {
	e := testsuite.NewEnv(t)
	const ref = "sched/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	before := e.Status(ref)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// No key: the scope travels as plain JSON, which the worker's codec reads as it is.
	input, err := converter.GetDefaultDataConverter().ToPayloads(contract.DriftScope{Tenant: "sched", Remediate: contract.RemediateDeploy})
	require.NoError(t, err)
	by, err := converter.GetDefaultDataConverter().ToPayload("drift/nightly")
	require.NoError(t, err)
	by.Metadata["type"] = []byte("Keyword")
	const id = "drift-sweep/nightly-2026-01-01T00:00:00Z"
	run, err := e.Client.Temporal.WorkflowService().StartWorkflowExecution(ctx, &workflowservice.StartWorkflowExecutionRequest{
		Namespace: "default", WorkflowId: id, WorkflowType: &commonpb.WorkflowType{Name: contract.DriftSweepWorkflowName},
		TaskQueue: &taskqueuepb.TaskQueue{Name: e.TaskQueue, Kind: enumspb.TASK_QUEUE_KIND_NORMAL}, Input: input,
		SearchAttributes: &commonpb.SearchAttributes{IndexedFields: map[string]*commonpb.Payload{"TemporalScheduledById": by}},
		Identity:         "mallory", RequestId: uuid.NewString(),
	})
	require.NoError(t, err, "the server lets a caller set the attribute")
	err = e.Client.Temporal.GetWorkflow(ctx, id, run.GetRunId()).Get(ctx, nil)
	require.Error(t, err, "the sweep is refused")
	require.ErrorContains(t, err, "claims schedule drift/nightly started it")
	after := e.Status(ref)
	require.Equal(t, before.Drift, after.Drift, "no drift check ran")
	require.Equal(t, before.Operation.ID, after.Operation.ID, "nothing was deployed")
}

// latestHistory is the latest run's history of a workflow ID and its start event's attributes.
func latestHistory(ctx context.Context, t *testing.T, e *testsuite.Env, id string) ([]*historypb.HistoryEvent, *historypb.WorkflowExecutionStartedEventAttributes) {
	t.Helper()
	var evs []*historypb.HistoryEvent
	it := e.Client.Temporal.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		evs = append(evs, ev)
	}
	start := evs[0].GetWorkflowExecutionStartedEventAttributes()
	if start == nil {
		require.NoError(t, errors.New("no start event"))
	}
	return evs, start
}
