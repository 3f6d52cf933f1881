package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
)

// The steps every pipeline is assembled from. Each wraps one activity.

// validate is the authority on a config: it runs on every path when the pipeline starts (after any
// gate wait), against the stack on main then; the client and operate run the same activity before
// it, to refuse sooner (operate also reads from it where and when the pipeline runs).
func (p *pipeline) validate() error {
	return p.run(contract.Validate, true, func(ctx workflow.Context) (string, error) {
		var out contract.ValidateOutput
		in := contract.ValidateInput{Ref: p.in.Ref, ConfigYAML: p.in.ConfigYAML, DeployedRevision: p.in.DeployedRevision}
		if err := quick(ctx, p.local, contract.ActValidateConfig, in).Get(ctx, &out); err != nil {
			return "", err
		}
		p.progress.Stack, p.progress.Release = out.Stack, out.Release
		if out.Controls != nil {
			p.progress.Controls = out.Controls
		}
		return "stack " + out.Stack, nil
	})
}

func (p *pipeline) openMR(remove bool) error {
	return p.openMRWith(contract.OpenMRInput{Ref: p.in.Ref, Operation: string(p.in.Operation), OpID: p.in.OpID,
		ConfigYAML: p.in.ConfigYAML, Remove: remove})
}

// rerenderMR opens the MR of the committed config, as verified at the pinned revision, rendered
// against the stack on main.
func (p *pipeline) rerenderMR() error {
	return p.openMRWith(contract.OpenMRInput{Ref: p.in.Ref, Operation: string(p.in.Operation), OpID: p.in.OpID,
		Rerender: p.progress.Revision})
}

// archiveMR opens the archive's MR: the files at the pinned revision, the instance file marked archived.
func (p *pipeline) archiveMR() error {
	return p.openMRWith(contract.OpenMRInput{Ref: p.in.Ref, Operation: string(p.in.Operation), OpID: p.in.OpID,
		Archive: p.progress.Revision})
}

func (p *pipeline) openMRWith(in contract.OpenMRInput) error {
	return p.run(contract.OpenMR, true, func(ctx workflow.Context) (string, error) {
		var mr forge.MergeRequest
		if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActOpenMR, in).Get(ctx, &mr); err != nil {
			return "", err
		}
		p.progress.MR = &mr
		if mr.NoChanges {
			return "no changes: main already holds this config", nil
		}
		return fmt.Sprintf("%s (%s)", mr.ID, mr.State), nil
	})
}

// nothingToMerge is an MR that mergeMR only records (main already holds its render), or none.
func nothingToMerge(mr *forge.MergeRequest) bool { return mr == nil || mr.NoChanges }

func (p *pipeline) mergeMR() error {
	return p.run(contract.MergeMR, true, func(ctx workflow.Context) (string, error) {
		mr := p.progress.MR
		if mr == nil {
			return "nothing to merge", nil
		}
		if mr.NoChanges {
			// Main already holds exactly what slipway rendered: that is the record.
			rec, err := p.recordRender(ctx, mr.BaseSHA, mr.BaseSHA)
			return "nothing to merge" + rec, err
		}
		var merged forge.MergeRequest
		if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActMergeMR, *mr).Get(ctx, &merged); err != nil {
			return "", err
		}
		// What the forge repaired on the way (a stale lock a killed worker left) goes in the step's record.
		repaired := merged.Repaired
		merged.Repaired = nil
		p.progress.MR = &merged
		p.progress.Revision = merged.MergeSHA
		rec, err := p.recordRender(ctx, merged.HeadSHA, merged.MergeSHA)
		detail := "merged as " + short(merged.MergeSHA) + rec
		if len(repaired) > 0 {
			detail += "; " + strings.Join(repaired, "; ")
		}
		return detail, err
	})
}

// resolveRevision pins the main commit the rest of the attempt works from; it is
// re-resolved on retry so a fix pushed to main is picked up.
func (p *pipeline) resolveRevision(mustExist bool) error {
	return p.run(contract.ResolveRevision, false, func(ctx workflow.Context) (string, error) {
		var out contract.RevisionOutput
		in := contract.RevisionInput{Ref: p.in.Ref, MustExist: mustExist}
		if err := quick(ctx, p.local, contract.ActResolveRevision, in).Get(ctx, &out); err != nil {
			return "", err
		}
		p.progress.Revision = out.Revision
		p.usesOutputs = out.UsesOutputs
		if out.Stack != "" {
			p.progress.Stack, p.progress.Release = out.Stack, out.Release
		}
		if out.Controls != nil {
			p.progress.Controls = out.Controls
		}
		via := ""
		if out.Via != "" {
			via = " (read from the mirror " + out.Via + ": the forge is unavailable)"
		}
		if !out.Exists {
			return short(out.Revision) + " (no config for this instance)" + via, nil
		}
		return short(out.Revision) + via, nil
	})
}

func (p *pipeline) tfInput(destroy bool) contract.TerraformInput {
	return contract.TerraformInput{Ref: p.in.Ref, OpID: p.in.OpID, Revision: p.progress.Revision, Destroy: destroy}
}

func (p *pipeline) tfInit(in contract.TerraformInput) error {
	return p.run(contract.TFInit, false, func(ctx workflow.Context) (string, error) {
		actx, budget := p.tfCtx(ctx, "plan")
		in.Budget = budget
		err := workflow.ExecuteActivity(actx, contract.ActTerraformInit, in).Get(ctx, nil)
		return "at " + short(in.Revision), err
	})
}

func (p *pipeline) tfPlan(in contract.TerraformInput) (*contract.PlanOutput, error) {
	var plan contract.PlanOutput
	err := p.run(contract.TFPlan, false, func(ctx workflow.Context) (string, error) {
		actx, budget := p.tfCtx(ctx, "plan")
		in.Budget = budget
		if err := workflow.ExecuteActivity(actx, contract.ActTerraformPlan, in).Get(ctx, &plan); err != nil {
			return "", err
		}
		return planLine(plan.Summary), nil
	})
	return &plan, err
}

// applyPlan runs init, plan and apply of that plan; once applied, a retry skips all three.
func (p *pipeline) applyPlan() error {
	if p.progress.Did(contract.TFApply) {
		return p.run(contract.TFApply, true, nil)
	}
	in := p.tfInput(false)
	plan := p.early
	if plan == nil {
		if err := p.tfInit(in); err != nil {
			return err
		}
		var err error
		if plan, err = p.tfPlan(in); err != nil {
			return err
		}
		p.progress.Plan = plan
		if err := p.approvePlan(plan, "terraform plan"); err != nil {
			return err
		}
	}
	if err := p.drainBeforeApply(plan); err != nil {
		return err
	}
	return p.run(contract.TFApply, true, func(ctx workflow.Context) (string, error) {
		var out contract.InfraOutput
		actx, budget := p.tfCtx(ctx, "apply")
		pctx, pbudget := p.tfCtx(ctx, "plan")
		release, err := p.drawCapacity(ctx, contract.TFApply, "apply")
		if err != nil {
			return "", err
		}
		defer release()
		err = workflow.ExecuteActivity(actx, contract.ActTerraformApply,
			contract.ApplyInput{Ref: p.in.Ref, Plan: *plan, Budget: budget}).Get(ctx, &out)
		note := ""
		if err != nil && errorType(err) == contract.ErrStalePlan && replansStalePlans(ctx) {
			// Only this operation writes the instance's state, so a stale plan means an apply of it
			// was cut short after terraform saved state: plan what is left, once, and apply that.
			in.Budget = pbudget
			if err = workflow.ExecuteActivity(pctx, contract.ActTerraformPlan, in).Get(ctx, plan); err == nil {
				p.progress.Plan = plan
				// An approval names one plan: the new one needs its own.
				if err = p.approvePlan(plan, "terraform plan, made again after a stale plan"); err == nil {
					err = workflow.ExecuteActivity(actx, contract.ActTerraformApply,
						contract.ApplyInput{Ref: p.in.Ref, Plan: *plan, Budget: budget}).Get(ctx, &out)
				}
				note = fmt.Sprintf("; planned again after a stale plan (%s)", planLine(plan.Summary))
			}
		}
		if err != nil {
			return "", err
		}
		p.progress.Infra = &out
		return fmt.Sprintf("%d resource(s) in state, serial %d%s", len(out.Resources), out.Serial, note), nil
	})
}

func (p *pipeline) destroyInfra() error {
	if p.progress.Did(contract.TFDestroy) {
		return p.run(contract.TFDestroy, true, nil)
	}
	in := p.tfInput(true)
	if p.early != nil {
		return p.applyDestroyPlan(in)
	}
	if err := p.tfInit(in); err != nil {
		return err
	}
	return p.run(contract.TFDestroy, true, func(ctx workflow.Context) (string, error) {
		var out contract.InfraOutput
		actx, budget := p.tfCtx(ctx, "destroy")
		in.Budget = budget
		release, err := p.drawCapacity(ctx, contract.TFDestroy, "destroy")
		if err != nil {
			return "", err
		}
		defer release()
		if err := workflow.ExecuteActivity(actx, contract.ActTerraformDestroy, in).Get(ctx, &out); err != nil {
			return "", err
		}
		p.progress.Infra = &out
		return fmt.Sprintf("%d resource(s) left in state", len(out.Resources)), nil
	})
}

func (p *pipeline) deployApp() error {
	return p.run(contract.DeployApp, false, func(ctx workflow.Context) (string, error) {
		timeout := p.in.Settings.DeployDeadline()
		in := contract.AppInput{Ref: p.in.Ref, Revision: p.progress.Revision, Deadline: workflow.Now(ctx).Add(timeout),
			Recreate: p.in.Recreate && p.drainsReplace}
		var st contract.AppStatus
		if err := workflow.ExecuteActivity(deployCtx(ctx, timeout), contract.ActDeployApp, in).Get(ctx, &st); err != nil {
			return "", err
		}
		p.progress.App = &st
		if in.Recreate {
			return "recreated: " + appLine(st), nil
		}
		return appLine(st), nil
	})
}

func (p *pipeline) removeApp() error {
	return p.run(contract.RemoveApp, false, func(ctx workflow.Context) (string, error) {
		timeout := p.in.Settings.DeployDeadline()
		in := contract.AppInput{Ref: p.in.Ref, Revision: p.progress.Revision, Deadline: workflow.Now(ctx).Add(timeout)}
		var st contract.AppStatus
		if err := workflow.ExecuteActivity(deployCtx(ctx, timeout), contract.ActRemoveApp, in).Get(ctx, &st); err != nil {
			return "", err
		}
		p.progress.App = &st
		return appLine(st), nil
	})
}

func planLine(s contract.PlanSummary) string {
	if s.NoChanges {
		return "no changes"
	}
	return fmt.Sprintf("%d to add, %d to change, %d to destroy", s.Add, s.Change, s.Destroy)
}

func appLine(st contract.AppStatus) string {
	if !st.Deployed {
		return st.Message
	}
	parts := []string{st.Sync, st.Health}
	if st.Message != "" {
		parts = append(parts, st.Message)
	}
	return strings.Join(parts, " ")
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// bootstrapSecrets makes sure the stack's secrets exist on the worker before the
// app is deployed; the first deploy creates them, later ones find them.
func (p *pipeline) bootstrapSecrets() error {
	return p.run(contract.BootstrapSecrets, false, func(ctx workflow.Context) (string, error) {
		var out contract.SecretsOutput
		in := contract.SecretsInput{Ref: p.in.Ref, Revision: p.progress.Revision}
		if err := quick(ctx, p.local, contract.ActBootstrapSecrets, in).Get(ctx, &out); err != nil {
			return "", err
		}
		return fmt.Sprintf("%d secret(s), %d created", len(out.Names), len(out.Created)), nil
	})
}

// forgetSecrets deletes the instance's secrets once its infrastructure is gone.
func (p *pipeline) forgetSecrets() error {
	return p.run(contract.ForgetSecrets, true, func(ctx workflow.Context) (string, error) {
		err := quick(ctx, p.local, contract.ActForgetSecrets, p.in.Ref).Get(ctx, nil)
		return "secrets deleted from the worker", err
	})
}
