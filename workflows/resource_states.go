package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ResourceStatesWorkflow runs the one read. A deployer that does not answer fails it soon:
// status is asked by a person waiting for it.
func ResourceStatesWorkflow(ctx workflow.Context, in contract.ResourceStatesInput) ([]contract.ResourceState, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: time.Minute,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var out []contract.ResourceState
	err := workflow.ExecuteActivity(ctx, contract.ActResourceStates, in).Get(ctx, &out)
	return out, err
}
