package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// DeployPipeline is the first deploy and every update (EDP's deploy workflow): an
// optional config change through its own MR, then terraform init, plan, apply of
// that plan, then the app at the same revision. Without a config change it renders the
// committed config against the current stack through its own MR first.
func DeployPipeline(ctx workflow.Context, in contract.PipelineInput) (contract.PipelineResult, error) {
	p := newPipeline(ctx, in)
	p.drainsReplace = drainsBeforeReplace(ctx)
	secrets := withSecrets(ctx)
	var plan []func() error
	switch {
	case in.ConfigYAML != "":
		plan = append(plan, p.validate, func() error { return p.openMR(false) }, p.planOnMR, p.mergeMR)
	case rendersCurrentStack(ctx):
		// A plain deploy takes the stack on main too: the committed file, once verified as slipway's,
		// is rendered again and merged (nothing to merge when main already holds that render).
		plan = append(plan, func() error { return p.resolveRevision(true) }, p.verifyRender, p.rerenderMR, p.planOnMR, p.mergeMR)
	}
	plan = append(plan, func() error { return p.resolveRevision(true) }, p.verifyRender, p.applyPlan)
	if secrets {
		plan = append(plan, p.bootstrapSecrets)
	}
	if p.verifies && rendersOutputs(ctx) {
		plan = append(plan, p.renderOutputs)
	}
	plan = append(plan, p.deployApp, func() error { return p.hook(HookPostDeploy) })
	for _, step := range plan {
		if err := step(); err != nil {
			return contract.PipelineResult{}, p.fail(err)
		}
	}
	res := p.result()
	if p.progress.Plan != nil {
		res.Plan = &p.progress.Plan.Summary
	}
	return res, nil
}
