package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// RolloutPlanWorkflow computes a rollout's action list with its batches and changes nothing:
// `slipway rollout plan` prints it, and `rollout start` checks its input with it.
func RolloutPlanWorkflow(ctx workflow.Context, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
	var plan contract.RolloutPlan
	if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActPlanRollout, spec).Get(ctx, &plan); err != nil {
		return plan, err
	}
	AssignBatches(spec, plan.Actions)
	return plan, nil
}
