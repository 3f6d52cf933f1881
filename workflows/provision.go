package workflows

import "go.temporal.io/sdk/workflow"

// ProvisionPipeline validates the config, renders it into the GitOps repo through
// one MR and merges it (Grove's create-instance pipeline).
func ProvisionPipeline(ctx workflow.Context, in PipelineInput) (PipelineResult, error) {
	p := newPipeline(ctx, in)
	for _, step := range []func() error{p.validate, func() error { return p.openMR(false) }, p.mergeMR} {
		if err := step(); err != nil {
			return PipelineResult{}, p.fail(err)
		}
	}
	if p.progress.Revision == "" && p.progress.MR != nil {
		p.progress.Revision = p.progress.MR.BaseSHA // no changes: main already held this config
	}
	return p.result(), nil
}
