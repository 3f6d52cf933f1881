package activities

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// TerraformInit writes the instance's terraform files at the revision into its
// working directory and runs `terraform init`.
func (a *Activities) TerraformInit(ctx context.Context, in contract.TerraformInput) error {
	bctx, cancel := withBudget(withLockNote(ctx), in.Budget)
	defer cancel()
	return overBudget(bctx, a.prepare(bctx, in, true))
}

// TerraformPlan saves a plan in the plan store, where any worker can apply it, and returns
// its summary.
func (a *Activities) TerraformPlan(ctx context.Context, in contract.TerraformInput) (contract.PlanOutput, error) {
	ctx, cancel := withBudget(withLockNote(ctx), in.Budget)
	defer cancel()
	if err := a.prepare(ctx, in, false); err != nil {
		return contract.PlanOutput{}, overBudget(ctx, err)
	}
	name := in.OpID
	if in.Destroy {
		name += "-destroy"
	}
	var plan *terraform.Plan
	err := withHeartbeat(ctx, "terraform plan", func(ctx context.Context) error {
		var err error
		plan, err = a.Terraform.Plan(ctx, workspace(in.Ref), name, in.Destroy)
		return err
	})
	if err != nil {
		return contract.PlanOutput{}, overBudget(ctx, classify(err))
	}
	return planOutput(plan, in.Detail), nil
}

// TerraformApply applies exactly the saved plan. Terraform refuses a plan made
// before the state changed, and the runner skips a plan hash already applied, so
// a retry never applies twice.
func (a *Activities) TerraformApply(ctx context.Context, in contract.ApplyInput) (contract.InfraOutput, error) {
	if err := a.fence(ctx); err != nil {
		return contract.InfraOutput{}, err
	}
	ctx = withLockNote(ctx)
	plan := &terraform.Plan{File: in.Plan.File, SHA256: in.Plan.SHA256}
	var already bool
	bctx, cancel := withBudget(ctx, in.Budget)
	defer cancel()
	err := withHeartbeat(bctx, "terraform apply", func(ctx context.Context) error {
		var err error
		already, err = a.Terraform.Apply(ctx, workspace(in.Ref), plan)
		return err
	})
	if err != nil {
		return contract.InfraOutput{}, overBudget(bctx, classify(err))
	}
	// The apply may have finished while the worker stopped: then reading the state is cut short
	// and the retry finds the plan applied.
	out, outputs, err := a.infra(ctx, in.Ref)
	out.AlreadyApplied = already
	if err != nil {
		return out, stopped(ctx, err)
	}
	// Sensitive outputs are masked by the runner: only their names reach history and status.
	out.Outputs = contract.BoundOutputs(outputs)
	return out, nil
}

// TerraformDestroy runs `terraform destroy` on the instance's state.
func (a *Activities) TerraformDestroy(ctx context.Context, in contract.TerraformInput) (contract.InfraOutput, error) {
	if err := a.fence(ctx); err != nil {
		return contract.InfraOutput{}, err
	}
	ctx = withLockNote(ctx)
	bctx, cancel := withBudget(ctx, in.Budget)
	defer cancel()
	if err := a.prepare(bctx, in, false); err != nil {
		return contract.InfraOutput{}, overBudget(bctx, err)
	}
	err := withHeartbeat(bctx, "terraform destroy", func(ctx context.Context) error {
		return a.Terraform.Destroy(ctx, workspace(in.Ref))
	})
	if err != nil {
		return contract.InfraOutput{}, overBudget(bctx, classify(err))
	}
	out, _, err := a.infra(ctx, in.Ref)
	return out, stopped(ctx, err)
}

// prepare makes the working directory match the revision (or the proposed
// config) and runs init when forced or when this worker has not yet.
func (a *Activities) prepare(ctx context.Context, in contract.TerraformInput, forceInit bool) error {
	files, all, err := a.terraformFiles(ctx, in)
	if err != nil {
		return err
	}
	rev := in.Revision
	if in.ConfigYAML != "" || in.Rerender {
		rev = "" // a proposed config renders against the stack on main, and its lock file is not the revision's to record
	}
	stack := stackOf(all)
	var creds []string
	if stack != "" {
		if creds, err = a.stackCredentials(ctx, rev, stack); err != nil {
			return err
		}
	}
	return a.prepareFiles(ctx, in.Ref, all, rev, creds, files, forceInit)
}

// prepareFiles writes the instance's terraform files and runs init unless this worker has.
// The stack (from the instance directory all) picks the worker variables terraform may see and
// the engine binary, creds the credentials it gets (nil: those recorded); the runner records
// them for the commands that follow. rev, the revision the files are at, keys the recorded lock file.
func (a *Activities) prepareFiles(ctx context.Context, ref contract.Ref, all map[string][]byte, rev string, creds []string, files map[string][]byte, forceInit bool) error {
	ws := workspace(ref)
	stack, _, _ := strings.Cut(stackOf(all), "@") // the bare name picks the worker variables and engine
	ws.Stack, ws.Revision, ws.Credentials = stack, rev, creds
	engine, err := engineOf(all)
	if err != nil {
		return err
	}
	ws.Engine = engine
	if err := a.Terraform.Prepare(ctx, ws, files); err != nil {
		return classify(err)
	}
	if !forceInit && a.Terraform.Initialized(ws) {
		return nil
	}
	return classify(withHeartbeat(ctx, "terraform init", func(ctx context.Context) error {
		return a.Terraform.Init(ctx, ws)
	}))
}

// terraformFiles are the instance's terraform/ files, committed or proposed, and its whole directory.
func (a *Activities) terraformFiles(ctx context.Context, in contract.TerraformInput) (map[string][]byte, map[string][]byte, error) {
	var all map[string][]byte
	var err error
	switch {
	case in.To != "":
		all, err = a.renderTo(ctx, in)
	case in.ConfigYAML != "":
		all, err = a.render(ctx, in.Revision, in.Ref, []byte(in.ConfigYAML))
	case in.Rerender:
		all, err = a.rerender(ctx, in.Ref, in.Revision, in.Revision)
	default:
		all, err = a.Forge.ReadDir(ctx, in.Revision, in.Ref.Dir())
		err = classify(err)
	}
	if err != nil {
		return nil, nil, err
	}
	files, err := terraformOnly(all, in.Ref, in.Revision)
	return files, all, err
}

// engineOf is the engine an instance directory records ("opentofu ~> 1.10"); "" when it records
// none (the worker's default terraform). A file that does not read as one is bad input.
func engineOf(all map[string][]byte) (string, error) {
	data, ok := all[config.EngineFile]
	if !ok {
		return "", nil
	}
	e, err := config.ParseEngineFile(data)
	if err != nil {
		return "", invalidConfig(err)
	}
	return e.String(), nil
}

// stackOf is the stack an instance directory's instance.yaml names; "" when it has none.
func stackOf(all map[string][]byte) string {
	inst, err := config.ParseInstance(all[instanceFile])
	if err != nil {
		return ""
	}
	return inst.Stack // with its pin: the facts of a pinned instance are its release's
}

// terraformOnly picks the terraform/ files out of an instance directory.
func terraformOnly(all map[string][]byte, ref contract.Ref, rev string) (map[string][]byte, error) {
	files := map[string][]byte{}
	for path, data := range all {
		if rest, ok := strings.CutPrefix(path, "terraform/"); ok {
			files[rest] = data
		}
	}
	if len(files) == 0 {
		return nil, notFoundf("%s has no terraform files at %s", ref.Dir(), rev)
	}
	return files, nil
}

// infra is what the state holds after an apply or destroy, and its root outputs (sensitive ones masked).
func (a *Activities) infra(ctx context.Context, ref contract.Ref) (contract.InfraOutput, map[string]any, error) {
	st, err := a.Terraform.State(ctx, workspace(ref))
	if err != nil {
		return contract.InfraOutput{}, nil, classify(err)
	}
	out := contract.InfraOutput{Serial: st.Serial, Resources: []string{}}
	for _, r := range st.Resources {
		out.Resources = append(out.Resources, r.Address)
	}
	return out, st.Outputs, nil
}

// ForceUnlock releases the stuck state lock an operator named (slipway resolve
// --force-unlock). No lock at all is success, so a retried call is harmless.
func (a *Activities) ForceUnlock(ctx context.Context, in contract.UnlockInput) error {
	if err := a.fence(ctx); err != nil {
		return err
	}
	return classify(withHeartbeat(ctx, "terraform force-unlock", func(ctx context.Context) error {
		return a.Terraform.ForceUnlock(ctx, workspace(in.Ref), in.LockID)
	}))
}

// withLockNote tells the runner which activity of which pipeline takes the state lock, so a
// lock stranded by a lost worker names its holder, and logs what the runner repaired of what a
// killed worker left (its plugin cache, a temporary file).
func withLockNote(ctx context.Context) context.Context {
	if !activity.IsActivity(ctx) {
		return ctx
	}
	info := activity.GetInfo(ctx)
	logger := activity.GetLogger(ctx)
	ctx = terraform.WithNotes(ctx, func(msg string, attrs ...any) { logger.Warn(msg, attrs...) })
	return terraform.WithLockNote(ctx, terraform.LockNote{
		Operation: fmt.Sprintf("%s, %s attempt %d", info.WorkflowExecution.ID, info.ActivityType.Name, info.Attempt),
		Who:       "(slipway worker, task queue " + info.TaskQueue + ")",
	})
}

// planOutput is the plan's summary; with detail, each change's attributes with their values (the
// plan command's answer); without, their names only, no values: a deploy's plan then has the shape
// a preview fingerprinted, so a rollout can approve it once per shape (internal/planprint).
func planOutput(p *terraform.Plan, detail bool) contract.PlanOutput {
	// The name, not this host's path: the apply may run on another worker.
	out := contract.PlanOutput{File: filepath.Base(p.File), SHA256: p.SHA256, Summary: contract.PlanSummary{
		Add: p.Summary.Add, Change: p.Summary.Change, Destroy: p.Summary.Destroy, NoChanges: p.Summary.NoChanges,
	}}
	for _, rc := range p.Summary.Resources {
		c := contract.ResourceChange{Address: rc.Address, Type: rc.Type, Name: rc.Name, Actions: rc.Actions}
		for _, a := range rc.Attributes {
			ac := contract.AttributeChange{Path: a.Path, Sensitive: a.Sensitive}
			if detail {
				ac.Before, ac.After = a.Before, a.After
			}
			c.Attributes = append(c.Attributes, ac)
		}
		out.Summary.Resources = append(out.Summary.Resources, c)
	}
	out.Summary.DataLoss = out.Summary.DataLossResources()
	return out
}
