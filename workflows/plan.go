package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// PlanPipeline is a dry run (EDP's plan workflow): the config diff the repo would
// get and the terraform plan of the same render, attribute by attribute. It changes nothing.
func PlanPipeline(ctx workflow.Context, in contract.PipelineInput) (contract.PipelineResult, error) {
	p := newPipeline(ctx, in)
	current := rendersCurrentStack(ctx)
	var diff string
	var planOut *contract.PlanOutput
	run := []func() error{
		func() error { return p.resolveRevision(true) },
		func() error {
			if in.ConfigYAML != "" {
				return nil // the plan runs the proposed config, rendered afresh, not main's files
			}
			return p.verifyRender()
		},
		func() error {
			return p.run(contract.ConfigDiff, false, func(ctx workflow.Context) (string, error) {
				// The pinned revision: a push to main since must not make the halves disagree.
				in := contract.DiffInput{Ref: p.in.Ref, ConfigYAML: p.in.ConfigYAML, Revision: p.progress.Revision, To: p.in.To}
				if err := quick(ctx, p.local, contract.ActConfigDiff, in).Get(ctx, &diff); err != nil {
					return "", err
				}
				if diff == "" {
					return "no config changes", nil
				}
				return "config changes", nil
			})
		},
		func() error {
			in := p.tfInput(false)
			in.ConfigYAML, in.To = p.in.ConfigYAML, p.in.To
			// The terraform half plans the render the config diff shows: the committed file (verified
			// above) against the stack on main, and says what each change sets.
			in.Rerender, in.Detail = current && in.ConfigYAML == "", current
			if err := p.tfInit(in); err != nil {
				return err
			}
			var err error
			planOut, err = p.tfPlan(in)
			return err
		},
	}
	if in.ConfigYAML != "" {
		run = append([]func() error{p.validate}, run...)
	}
	for _, step := range run {
		if err := step(); err != nil {
			return contract.PipelineResult{}, p.fail(err)
		}
	}
	res := p.result()
	res.Diff = diff
	res.Plan = &planOut.Summary
	return res, nil
}
