package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ArchivePipeline removes the app and its namespace (Grove's archive); the config
// and the infrastructure stay, so a deploy brings the instance back.
func ArchivePipeline(ctx workflow.Context, in contract.PipelineInput) (contract.PipelineResult, error) {
	p := newPipeline(ctx, in)
	for _, step := range []func() error{func() error { return p.resolveRevision(true) }, p.verifyRender, p.approveRemoval, p.drain, p.removeApp} {
		if err := step(); err != nil {
			return contract.PipelineResult{}, p.fail(err)
		}
	}
	return p.result(), nil
}
