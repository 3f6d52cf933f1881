package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// DestroyPipeline removes the app and runs terraform destroy (EDP's destroy). The
// config entry stays, so a deploy re-creates the instance.
func DestroyPipeline(ctx workflow.Context, in contract.PipelineInput) (contract.PipelineResult, error) {
	p := newPipeline(ctx, in)
	for _, step := range []func() error{func() error { return p.resolveRevision(true) }, p.verifyRender, p.approveRemoval, p.drain, p.removeApp, p.destroyInfra} {
		if err := step(); err != nil {
			return contract.PipelineResult{}, p.fail(err)
		}
	}
	return p.result(), nil
}
