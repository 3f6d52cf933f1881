package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ValidateConfigWorkflow checks a config against its stack without touching the
// instance, so a client can refuse bad input before an update is accepted. It runs the
// pipeline's validate activity, which stays the authority when the pipeline runs.
func ValidateConfigWorkflow(ctx workflow.Context, in contract.ValidateInput) (contract.ValidateOutput, error) {
	var out contract.ValidateOutput
	err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActValidateConfig, in).Get(ctx, &out)
	return out, err
}
