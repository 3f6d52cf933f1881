package workerapp

import (
	"context"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"

	slipclient "github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// tellTimeout bounds telling the instance: the attempt it precedes waits for it.
const tellTimeout = 5 * time.Second

// noticeRetries tells an instance when a step of its pipeline starts attempt
// contract.RetryingAfter: the worker is the one that knows the attempt, and Temporal records
// nothing in history per attempt. A signal then, and never on a first attempt, keeps the
// history of an operation whose steps succeed as short as before.
type noticeRetries struct {
	interceptor.WorkerInterceptorBase
	failures converter.FailureConverter
}

func (n *noticeRetries) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &retryNotice{n: n}
	i.Next = next
	return i
}

type retryNotice struct {
	interceptor.ActivityInboundInterceptorBase
	n *noticeRetries
}

// ExecuteActivity tells the instance before the attempt runs, so the signal is in the instance's
// history before the step can end and the pipeline's next step signal follow it: a notice never
// lands on the step after.
func (r *retryNotice) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if info := activity.GetInfo(ctx); info.Attempt == contract.RetryingAfter && !info.IsLocalActivity {
		if instance, opID, ok := contract.PipelineOf(info.WorkflowExecution.ID); ok {
			r.n.tell(ctx, activity.GetClient(ctx), instance, opID, info)
		}
	}
	return r.Next.ExecuteActivity(ctx, in)
}

// tell reads the activity's last failure and next try from the pipeline's pending activity and
// signals the instance; a failure to tell is logged, never the step's.
func (n *noticeRetries) tell(ctx context.Context, c client.Client, instance, opID string, info activity.Info) {
	ctx, cancel := context.WithTimeout(ctx, tellTimeout)
	defer cancel()
	log := activity.GetLogger(ctx)
	d, err := c.DescribeWorkflowExecution(ctx, info.WorkflowExecution.ID, info.WorkflowExecution.RunID)
	if err != nil {
		log.Warn("retrying step not told to its instance", "instance", instance, "error", err)
		return
	}
	r := &contract.StepRetry{Activity: info.ActivityType.Name, ActivityID: info.ActivityID, Attempt: int(info.Attempt), Running: true}
	for _, pa := range d.GetPendingActivities() {
		if pa.GetActivityId() == info.ActivityID {
			if got := slipclient.RetryOf([]*workflowpb.PendingActivityInfo{pa}, n.failures); got != nil {
				r = got
			}
		}
	}
	r.Operation, r.Pipeline = opID, info.WorkflowExecution.ID
	if err := c.SignalWorkflow(ctx, instance, "", contract.SignalStepRetrying, *r); err != nil {
		log.Warn("retrying step not told to its instance", "instance", instance, "error", err)
	}
}
