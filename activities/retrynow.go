package activities

import (
	"context"
	"errors"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
)

// RetryNow resets a Retrying step's activity in its pipeline (Temporal's activity API): the next
// attempt is scheduled now instead of after its backoff, with its attempts counted from 1 again.
// An activity that already ended needs nothing: it was not waiting any more.
func (a *Activities) RetryNow(ctx context.Context, in contract.RetryNowInput) error {
	info := activity.GetInfo(ctx)
	_, err := activity.GetClient(ctx).WorkflowService().ResetActivity(ctx, &workflowservice.ResetActivityRequest{
		Namespace: info.WorkflowNamespace, Execution: &commonpb.WorkflowExecution{WorkflowId: in.Pipeline},
		Activity: &workflowservice.ResetActivityRequest_Id{Id: in.ActivityID}, ResetHeartbeat: true,
	})
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return nil
	case errors.As(err, new(*serviceerror.InvalidArgument)), errors.As(err, new(*serviceerror.Unimplemented)):
		return temporal.NewNonRetryableApplicationError("retry now: "+err.Error(), "NotAllowed", err)
	}
	return err
}
