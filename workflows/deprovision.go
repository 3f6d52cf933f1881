package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// DeprovisionPipeline destroys everything and removes the config through an MR
// (Grove's deprovision). It is final.
func DeprovisionPipeline(ctx workflow.Context, in contract.PipelineInput) (contract.PipelineResult, error) {
	p := newPipeline(ctx, in)
	run := []func() error{func() error { return p.resolveRevision(true) }, p.verifyRender, p.approveRemoval, p.drain, p.removeApp, p.destroyInfra}
	if withSecrets(ctx) {
		run = append(run, p.forgetSecrets)
	}
	run = append(run, func() error { return p.openMR(true) }, p.mergeMR)
	for _, step := range run {
		if err := step(); err != nil {
			return contract.PipelineResult{}, p.fail(err)
		}
	}
	return p.result(), nil
}
