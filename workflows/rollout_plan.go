package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/steps"
)

// RolloutPlanWorkflow computes a rollout's action list with its batches and changes nothing:
// `slipway rollout plan` prints it, and `rollout start` checks its input with it.
func RolloutPlanWorkflow(ctx workflow.Context, spec steps.RolloutSpec) (steps.RolloutPlan, error) {
	var plan steps.RolloutPlan
	if err := workflow.ExecuteActivity(inspectCtx(ctx), steps.ActPlanRollout, spec).Get(ctx, &plan); err != nil {
		return plan, err
	}
	AssignBatches(spec, plan.Actions)
	return plan, nil
}
