package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
)

// A step's pending activity past its first attempt is a StepRetry: the attempt, the last error
// decoded through the codec that sealed it, when it failed and when it tries next. Activities on
// their first attempt are not retrying, and of several the furthest along is shown.
func TestRetryOfPendingActivities(t *testing.T) {
	k, err := codec.Parse("test", genKey(t, "k1"))
	require.NoError(t, err)
	fc := codec.FailureConverter(codec.DataConverter(k))
	sealed := fc.ErrorToFailure(temporal.NewApplicationError("forge answered 500", "Unavailable"))
	require.NotContains(t, sealed.String(), "forge answered 500", "the codec seals the failure's message")
	failed, next := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC), time.Date(2026, 11, 27, 15, 0, 4, 0, time.UTC)
	pending := []*workflowpb.PendingActivityInfo{
		{ActivityId: "5", ActivityType: &commonpb.ActivityType{Name: contract.ActOpenMR}, Attempt: 1,
			State: enumspb.PENDING_ACTIVITY_STATE_STARTED},
		{ActivityId: "7", ActivityType: &commonpb.ActivityType{Name: contract.ActMergeMR}, Attempt: 3,
			State: enumspb.PENDING_ACTIVITY_STATE_SCHEDULED, LastFailure: sealed,
			LastAttemptCompleteTime: timestamppb.New(failed), NextAttemptScheduleTime: timestamppb.New(next)},
	}
	r := RetryOf(pending, fc)
	require.NotNil(t, r)
	require.Equal(t, contract.StepRetry{Activity: contract.ActMergeMR, ActivityID: "7", Attempt: 3,
		LastError: "forge answered 500", LastFailure: failed, NextTry: next}, *r)

	require.Nil(t, RetryOf(pending[:1], fc), "a first attempt is running, not retrying")
	require.Nil(t, RetryOf(nil, fc))

	pending[1].State = enumspb.PENDING_ACTIVITY_STATE_STARTED
	pending[1].LastHeartbeatTime = timestamppb.New(next)
	r = RetryOf(pending, fc)
	require.True(t, r.Running)
	require.Equal(t, next, r.LastHeartbeat, "a running attempt's heartbeat shows: a stuck one stops beating")
}

// A step that stopped heartbeating is timed out and retried by Temporal: stuck shows as Retrying
// with what timed out.
func TestRetryOfTimedOutAttempt(t *testing.T) {
	f := temporal.GetDefaultFailureConverter().ErrorToFailure(temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil))
	r := RetryOf([]*workflowpb.PendingActivityInfo{{ActivityId: "9", Attempt: 2, LastFailure: f}}, nil)
	require.Equal(t, "timed out (Heartbeat)", r.LastError)
}

// An operation whose task no worker takes never fails or retries: status calls it stalled once
// the task has waited longer than a worker ever needs, never during a retry's backoff.
func TestStalledWhenNoWorkerTakesATask(t *testing.T) {
	now := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	d := &workflowservice.DescribeWorkflowExecutionResponse{
		ExecutionConfig: &workflowpb.WorkflowExecutionConfig{TaskQueue: &taskqueuepb.TaskQueue{Name: "slipway"}},
		PendingActivities: []*workflowpb.PendingActivityInfo{{ActivityType: &commonpb.ActivityType{Name: contract.ActMergeMR},
			Attempt: 1, State: enumspb.PENDING_ACTIVITY_STATE_SCHEDULED, ScheduledTime: timestamppb.New(now.Add(-time.Minute))}},
	}
	require.Empty(t, Stalled(d, now), "a minute in the queue is not yet a stall")
	require.Contains(t, Stalled(d, now.Add(2*time.Minute)), "no worker has taken MergeMergeRequest (attempt 1) on task queue slipway since 2026-11-27T14:59:00Z")

	pa := d.PendingActivities[0]
	pa.Attempt, pa.NextAttemptScheduleTime = 5, timestamppb.New(now.Add(time.Minute))
	require.Empty(t, Stalled(d, now.Add(2*time.Minute)), "waiting for its backoff is not a stall")
	pa.State = enumspb.PENDING_ACTIVITY_STATE_STARTED
	require.Empty(t, Stalled(d, now.Add(time.Hour)), "a worker has it: a hung one times out and retries")

	d.PendingWorkflowTask = &workflowpb.PendingWorkflowTaskInfo{State: enumspb.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
		OriginalScheduledTime: timestamppb.New(now.Add(-5 * time.Minute))}
	require.Contains(t, Stalled(d, now), "no worker has taken the pipeline's workflow task on task queue slipway")
}
