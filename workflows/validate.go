package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ValidateConfigWorkflow checks a config against its stack without touching the
// instance, so a client can refuse bad input before it changes any state.
func ValidateConfigWorkflow(ctx workflow.Context, in contract.ValidateInput) (contract.ValidateOutput, error) {
	var out contract.ValidateOutput
	err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActValidateConfig, in).Get(ctx, &out)
	return out, err
}
