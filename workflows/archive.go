package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// ArchivePipeline removes the app and its namespace (Grove's archive); the config
// and the infrastructure stay, so a deploy brings the instance back. Like Grove's, it is
// an update with an automated config change: its own MR marks the instance file
// archived: true, which a deploy's render clears.
func ArchivePipeline(ctx workflow.Context, in contract.PipelineInput) (contract.PipelineResult, error) {
	p := newPipeline(ctx, in)
	steps := []func() error{func() error { return p.resolveRevision(true) }, p.verifyRender, p.approveRemoval, p.drain, p.removeApp}
	if recordsArchive(ctx) {
		steps = append(steps, p.archiveMR, p.mergeMR)
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return contract.PipelineResult{}, p.fail(err)
		}
	}
	return p.result(), nil
}
