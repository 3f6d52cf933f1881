package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// ValidateConfig checks a config against its stack on main and, after the first
// deploy, against the `initial` fields of the deployed config.
func (a *Activities) ValidateConfig(ctx context.Context, in contract.ValidateInput) (contract.ValidateOutput, error) {
	if in.Stacks {
		return a.stackSchemas(ctx, in.Stack)
	}
	if in.To != "" {
		data := []byte(in.ConfigYAML)
		if in.ConfigYAML == "" {
			_, committed, err := a.instanceDir(ctx, in.Ref, "")
			if err != nil {
				return contract.ValidateOutput{}, err
			}
			data = committed
		}
		pinned, err := a.repin(ctx, "", data, in.To)
		if err != nil {
			return contract.ValidateOutput{}, err
		}
		in.ConfigYAML, in.To = string(pinned), ""
	}
	inst, err := config.ParseInstance([]byte(in.ConfigYAML))
	if err == nil {
		err = config.RefuseArchived(inst)
	}
	if err != nil {
		return contract.ValidateOutput{}, invalidConfig(err)
	}
	stack, rel, err := a.instanceStack(ctx, "", inst)
	if err != nil {
		return contract.ValidateOutput{}, err
	}
	if err := a.checkLockFile(stack); err != nil {
		return contract.ValidateOutput{}, err
	}
	var previous *config.Instance
	if in.DeployedRevision != "" {
		if previous, err = a.committedInstance(ctx, in.DeployedRevision, in.Ref); err != nil {
			return contract.ValidateOutput{}, err
		}
	}
	for i, g := range inst.SchedulingGates {
		if err := gates.CheckTenant(in.Ref.Tenant, g.Name); err != nil {
			return contract.ValidateOutput{}, invalidConfig(fieldError(fmt.Sprintf("schedulingGates[%d]", i), err.Error()))
		}
	}
	targets, err := a.dependencyTargets(ctx, in.Ref, stack, inst)
	if err != nil {
		return contract.ValidateOutput{}, err
	}
	if _, err := config.Validate(stack, inst, previous); err != nil {
		return contract.ValidateOutput{}, invalidConfig(err)
	}
	exp, err := config.ExpiryOf(stack, inst, time.Now())
	if err != nil {
		return contract.ValidateOutput{}, invalidConfig(err)
	}
	if err := a.checkCredentials(stack, in.Ref); err != nil {
		return contract.ValidateOutput{}, err
	}
	if err := a.checkCapacity(stack); err != nil {
		return contract.ValidateOutput{}, err
	}
	if err := a.checkPlacement(ctx, stack, inst); err != nil {
		return contract.ValidateOutput{}, err
	}
	if err := a.checkEngine(stack); err != nil {
		return contract.ValidateOutput{}, err
	}
	return contract.ValidateOutput{Stack: inst.StackName(), Release: rel.Ref(), Gates: dependencyGates(inst.SchedulingGates, targets), Controls: controls(stack, inst),
		ControlPlane: inst.ControlPlane, Dependencies: targets, Protected: config.ProtectedBy(stack, inst), Expiry: expiryPlan(exp), Labels: inst.Labels}, nil
}

func expiryPlan(x *config.ExpirySpec) *contract.ExpiryPlan {
	if x == nil {
		return nil
	}
	return &contract.ExpiryPlan{At: x.At, Action: x.Action, Warn: x.Warn, Max: x.Max}
}

// controls are the approval rule and hooks in force for inst: the stack's, tightened by the instance's.
func controls(stack *config.Stack, inst *config.Instance) *contract.Controls {
	c := &contract.Controls{Approval: inst.Approval}
	if stack.Schema != nil {
		c.Approval = stack.Schema.Approval.Over(inst.Approval)
		c.Stateful = stack.Schema.Stateful
		c.Hooks = hookNames(stack.Schema)
		c.Budgets = budgets(stack.Schema.Timeouts)
		c.Capacity = capacityOf(stack.Schema.Capacity)
	}
	return c
}

// loadStack reads stacks/<name>/ at rev ("" = main).
func (a *Activities) loadStack(ctx context.Context, rev, name string) (*config.Stack, error) {
	files, err := a.readSharedDir(ctx, rev, config.StackDir(name))
	if err != nil {
		return nil, classify(err)
	}
	stack, err := config.LoadStack(name, files)
	if err != nil {
		return nil, invalidConfig(err)
	}
	return stack, nil
}

// committedInstance reads the instance file committed at rev; nil when there is none.
func (a *Activities) committedInstance(ctx context.Context, rev string, ref contract.Ref) (*config.Instance, error) {
	files, err := a.Forge.ReadDir(ctx, rev, ref.Dir())
	if err != nil {
		return nil, classify(err)
	}
	data, ok := files[instanceFile]
	if !ok {
		return nil, nil
	}
	inst, err := config.ParseInstance(data)
	if err != nil {
		return nil, invalidConfig(err)
	}
	return inst, nil
}

// render produces the instance's directory for configYAML against the stack at rev ("" = main).
func (a *Activities) render(ctx context.Context, rev string, ref contract.Ref, configYAML []byte) (map[string][]byte, error) {
	inst, err := config.ParseInstance(configYAML)
	if err != nil {
		return nil, invalidConfig(err)
	}
	stack, _, err := a.instanceStack(ctx, rev, inst)
	if err != nil {
		return nil, err
	}
	if err := a.consumeOutputs(ctx, ref, stack, inst); err != nil {
		return nil, err
	}
	outputs, err := a.renderedOutputs(ctx, rev, ref, stack)
	if err != nil {
		return nil, err
	}
	files, err := config.RenderWithOutputs(ref, ref.Derived().Namespace, stack, inst, outputs)
	if err != nil {
		return nil, invalidConfig(err) // a template that does not render is bad input, not a blip
	}
	return files, nil
}

// archived is the instance's directory as committed at rev, its instance file marked archived.
func (a *Activities) archived(ctx context.Context, ref contract.Ref, rev string) (map[string][]byte, error) {
	files, data, err := a.instanceDir(ctx, ref, rev)
	if err != nil {
		return nil, err
	}
	marked, err := config.MarkArchived(data)
	if err != nil {
		return nil, invalidConfig(err)
	}
	out := make(map[string][]byte, len(files))
	for p, d := range files {
		out[p] = d
	}
	out[instanceFile] = marked
	return out, nil
}

// rerender renders the instance file committed at rev against the stack at stackRev: main ("")
// for what a plain deploy merges, rev itself for a plan, so both its halves read one revision.
func (a *Activities) rerender(ctx context.Context, ref contract.Ref, rev, stackRev string) (map[string][]byte, error) {
	_, data, err := a.instanceDir(ctx, ref, rev)
	if err != nil {
		return nil, err
	}
	return a.render(ctx, stackRev, ref, data)
}

// instanceDir is the instance's directory as committed at rev, and its instance file.
func (a *Activities) instanceDir(ctx context.Context, ref contract.Ref, rev string) (map[string][]byte, []byte, error) {
	files, err := a.Forge.ReadDir(ctx, rev, ref.Dir())
	if err != nil {
		return nil, nil, classify(err)
	}
	data, ok := files[instanceFile]
	if !ok {
		return nil, nil, notFoundf("%s has no %s at %s", ref.Dir(), instanceFile, rev)
	}
	return files, data, nil
}

const instanceFile = "instance.yaml"

// checkLockFile refuses a stack whose lock file names a provider, version or package the
// worker's mirror does not have: every init would fail on it.
func (a *Activities) checkLockFile(stack *config.Stack) error {
	file := config.TerraformDir + "/" + terraform.LockFile
	lock, ok := stack.Files[file]
	if !ok || a.ProviderMirror == "" {
		return nil
	}
	if err := terraform.CheckLockFile(a.ProviderMirror, file, lock); err != nil {
		var le *terraform.LockFileError
		if !errors.As(err, &le) {
			return err
		}
		msg := le.Reason
		if le.Provider != "" {
			msg = fmt.Sprintf("provider %q %s", le.Provider, le.Reason)
		}
		return invalidConfig(&config.StackError{Stack: stack.Name, Errors: []config.FieldError{{Field: file, Message: msg}}})
	}
	return nil
}
