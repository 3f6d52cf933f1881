package client

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// describeTimeout bounds the read of the pipeline's pending activity: status must answer without it.
const describeTimeout = 5 * time.Second

// RetryOf is the pending activity that is past its first attempt (the highest attempt when
// several run), as a StepRetry; nil when every activity is on its first. fc decodes the last
// failure, whose message the codec sealed.
func RetryOf(pending []*workflowpb.PendingActivityInfo, fc converter.FailureConverter) *contract.StepRetry {
	var pick *workflowpb.PendingActivityInfo
	for _, pa := range pending {
		if pa.GetAttempt() > 1 && (pick == nil || pa.GetAttempt() > pick.GetAttempt()) {
			pick = pa
		}
	}
	if pick == nil {
		return nil
	}
	r := &contract.StepRetry{Activity: pick.GetActivityType().GetName(), ActivityID: pick.GetActivityId(),
		Attempt: int(pick.GetAttempt()), Running: pick.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED}
	if f := pick.GetLastFailure(); f != nil {
		if fc == nil {
			fc = temporal.GetDefaultFailureConverter()
		}
		r.LastError = contract.ErrorText(fc.FailureToError(f))
	}
	if t := pick.GetLastAttemptCompleteTime(); t != nil {
		r.LastFailure = t.AsTime()
	}
	if t := pick.GetNextAttemptScheduleTime(); t != nil {
		r.NextTry = t.AsTime()
	}
	if t := pick.GetLastHeartbeatTime(); t != nil && pick.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
		r.LastHeartbeat = t.AsTime()
	}
	return r
}

// withRetrying puts the running step's retries into st (operation.retrying) from the pipeline's
// pending activity, which Temporal keeps without a history event per attempt. What the instance
// recorded at RetryingAfter stays when the pipeline cannot be read.
func (c *Client) withRetrying(ctx context.Context, st *contract.Status) {
	op := st.Operation
	if op == nil || op.Result != contract.ResultRunning || op.Pipeline == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, describeTimeout)
	defer cancel()
	d, err := c.Temporal.DescribeWorkflowExecution(ctx, op.Pipeline, "")
	if err != nil {
		return
	}
	if op.Stalled = Stalled(d, time.Now()); op.Stalled != "" {
		st.Conditions = append(st.Conditions, lifecycle.Condition{Type: contract.CondRetrying, Status: lifecycle.ConditionTrue,
			Reason: contract.ReasonNoWorker, Message: op.Stalled})
	}
	r := RetryOf(d.GetPendingActivities(), c.Failures)
	if r == nil {
		op.Retrying = nil // the step the instance heard of ended, or was reset to its first attempt
		return
	}
	r.Step = op.Step
	for _, s := range op.Steps {
		if s.Name == op.Step && s.Status == contract.StepRunning {
			r.Since = s.StartedAt
		}
	}
	op.Retrying = r
}

// stallAfter is how long a task may wait for a worker before status calls the operation stalled:
// a polling worker takes one in milliseconds, a busy one within its slots' turnover.
const stallAfter = 2 * time.Minute

// Stalled says what of the pipeline d describes has waited longer than stallAfter for a worker
// to take it ("" when nothing has): with no worker polling, nothing ends, heartbeats or fails,
// so Temporal never retries and only the wait itself shows it. Read here, it costs no timer in
// any workflow and no event in any history.
func Stalled(d *workflowservice.DescribeWorkflowExecutionResponse, now time.Time) string {
	queue := d.GetExecutionConfig().GetTaskQueue().GetName()
	if wt := d.GetPendingWorkflowTask(); wt.GetState() == enumspb.PENDING_WORKFLOW_TASK_STATE_SCHEDULED {
		if since := wt.GetOriginalScheduledTime().AsTime(); wt.GetOriginalScheduledTime() != nil && now.Sub(since) > stallAfter {
			return fmt.Sprintf("no worker has taken the pipeline's workflow task on task queue %s since %s (%s): start or fix the workers",
				queue, since.UTC().Format(time.RFC3339), now.Sub(since).Round(time.Second))
		}
	}
	for _, pa := range d.GetPendingActivities() {
		if pa.GetState() != enumspb.PENDING_ACTIVITY_STATE_SCHEDULED || pa.GetPaused() {
			continue
		}
		since := pa.GetScheduledTime().AsTime()
		if t := pa.GetNextAttemptScheduleTime(); t != nil {
			since = t.AsTime() // a retry waits for its backoff first: that is not a stall
		}
		if q := pa.GetActivityOptions().GetTaskQueue().GetName(); q != "" {
			queue = q // a control plane's pool runs it
		}
		if pa.GetScheduledTime() != nil && now.Sub(since) > stallAfter {
			return fmt.Sprintf("no worker has taken %s (attempt %d) on task queue %s since %s (%s): start or fix the workers",
				pa.GetActivityType().GetName(), pa.GetAttempt(), queue, since.UTC().Format(time.RFC3339), now.Sub(since).Round(time.Second))
		}
	}
	return ""
}
