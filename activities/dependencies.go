package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/slipway-dev/slipway/internal/identity"
	"slices"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// Dependencies reads the instances a stack's schema.dependencies name, and finds their users;
// set from the worker's client.
type Dependencies interface {
	// Instance is the named instance as its workflow holds it; nil when there is none.
	Instance(ctx context.Context, ref contract.Ref) (*contract.DependencyInstance, error)
	// Users are the running instances whose InstanceDependencies name ref.
	Users(ctx context.Context, ref contract.Ref) ([]contract.Ref, error)
	// Plan sends a plan of configYAML and returns once it is accepted; refusals as for Instances.Deploy.
	Plan(ctx context.Context, ref contract.Ref, configYAML, actor, requestID string) error
}

// maxDependencyDepth bounds the walk that looks for a cycle: a longer chain is refused as one.
const maxDependencyDepth = 32

// dependencyTargets resolves the TENANT/NAME each of the stack's dependencies names in inst, and
// refuses one in another tenant (its outputs are that tenant's), itself, or that closes a cycle.
func (a *Activities) dependencyTargets(ctx context.Context, ref contract.Ref, stack *config.Stack, inst *config.Instance) ([]string, error) {
	if stack.Schema == nil || len(stack.Schema.Dependencies) == 0 {
		return nil, nil
	}
	if a.Dependencies == nil {
		return nil, fmt.Errorf("stack %s declares dependencies, but this worker cannot read instances", stack.Name)
	}
	var targets []string
	for i, d := range stack.Schema.Dependencies {
		field := "parameters." + d.Instance
		target, err := d.Target(ref.Tenant, inst.Parameters)
		if err != nil {
			return nil, invalidConfig(fieldError(field, err.Error()))
		}
		tenant, name, _ := strings.Cut(target, "/")
		switch {
		case tenant != ref.Tenant:
			return nil, invalidConfig(fieldError(field, fmt.Sprintf("%s is in tenant %s: a dependency is an instance of the same tenant (%s)", target, tenant, ref.Tenant)))
		case name == ref.Name:
			return nil, invalidConfig(fieldError(field, fmt.Sprintf("%s names the instance itself: a cycle of dependencies", target)))
		}
		dep, err := a.Dependencies.Instance(ctx, contract.Ref{Tenant: tenant, Name: name})
		if err != nil {
			return nil, err
		}
		if dep != nil {
			if dep.Stack != "" && dep.Stack != d.Stack {
				return nil, invalidConfig(fieldError(field, fmt.Sprintf("%s is an instance of stack %s; schema.dependencies[%d] (%s) needs one of stack %s",
					target, dep.Stack, i, d.Name, d.Stack)))
			}
			if chain, err := a.dependencyCycle(ctx, ref.String(), []string{ref.String(), target}, dep); err != nil {
				return nil, err
			} else if chain != nil {
				return nil, invalidConfig(fieldError(field, "a cycle of dependencies: "+strings.Join(chain, " -> ")))
			}
			if err := consumed(stack.Name, i, d, dep, nil); err != nil {
				return nil, invalidConfig(err)
			}
		}
		if !slices.Contains(targets, target) {
			targets = append(targets, target)
		}
	}
	return targets, nil
}

// dependencyCycle walks dep's recorded dependencies depth first; the chain back to self, if any.
func (a *Activities) dependencyCycle(ctx context.Context, self string, chain []string, dep *contract.DependencyInstance) ([]string, error) {
	if len(chain) > maxDependencyDepth {
		return append(chain, "..."), nil
	}
	for _, next := range dep.Dependencies {
		path := append(slices.Clone(chain), next)
		if next == self {
			return path, nil
		}
		if slices.Contains(chain, next) {
			continue // a cycle that does not pass through self was refused when it was made
		}
		tenant, name, _ := strings.Cut(next, "/")
		nd, err := a.Dependencies.Instance(ctx, contract.Ref{Tenant: tenant, Name: name})
		if err != nil {
			return nil, err
		}
		if nd == nil {
			continue
		}
		if found, err := a.dependencyCycle(ctx, self, path, nd); err != nil || found != nil {
			return found, err
		}
	}
	return nil, nil
}

// consumed checks that dep has each output d consumes, and none is sensitive; with params set, it
// puts each value into the parameter it fills. dep without outputs yet (not deployed) is checked later.
func consumed(stack string, i int, d config.Dependency, dep *contract.DependencyInstance, params map[string]any) error {
	if len(dep.Outputs) == 0 && params == nil {
		return nil // known once the dependency deployed: the render after its gate clears checks them
	}
	for _, out := range sortedOutputs(d.Outputs) {
		v, ok := dep.Outputs[out]
		switch {
		case !ok:
			return config.DependencyError(stack, i, "outputs."+out, "instance %s has no output %q (its outputs: %s)", dep.Ref, out, outputNames(dep.Outputs))
		case v == terraform.SensitiveOutput:
			return config.DependencyError(stack, i, "outputs."+out, "output %q of %s is sensitive: a dependent never takes one as a parameter", out, dep.Ref)
		}
		if params != nil {
			params[d.Outputs[out]] = v
		}
	}
	return nil
}

// consumeOutputs fills the parameters the stack's dependencies take from their instances' outputs,
// before a render: they are then parameters like any other, escaped and validated as they are.
func (a *Activities) consumeOutputs(ctx context.Context, ref contract.Ref, stack *config.Stack, inst *config.Instance) error {
	if stack.Schema == nil || len(stack.Schema.Dependencies) == 0 {
		return nil
	}
	if _, err := a.dependencyTargets(ctx, ref, stack, inst); err != nil {
		return err
	}
	for i, d := range stack.Schema.Dependencies {
		if len(d.Outputs) == 0 {
			continue
		}
		target, _ := d.Target(ref.Tenant, inst.Parameters)
		tenant, name, _ := strings.Cut(target, "/")
		dep, err := a.Dependencies.Instance(ctx, contract.Ref{Tenant: tenant, Name: name})
		if err != nil {
			return err
		}
		if dep == nil {
			return invalidConfig(fieldError("parameters."+d.Instance, fmt.Sprintf("instance %s does not exist: its outputs cannot be read", target)))
		}
		if inst.Parameters == nil {
			inst.Parameters = map[string]any{}
		}
		if err := consumed(stack.Name, i, d, dep, inst.Parameters); err != nil {
			return invalidConfig(err)
		}
	}
	return nil
}

// NotifyDependents sends a plan or deploy (each dependent's stack says which) to the users of
// in.Ref whose committed parameters differ from the outputs they consume. Request IDs are the
// dependent and the values, so a retry sends the same requests; a busy dependent is retried.
func (a *Activities) NotifyDependents(ctx context.Context, in contract.NotifyDependentsInput) (contract.NotifyDependentsOutput, error) {
	var out contract.NotifyDependentsOutput
	if a.Dependencies == nil {
		return out, nil
	}
	if in.OnBehalfOf != nil {
		// Sent for who asked for the deploy that changed the outputs.
		ctx = identity.With(ctx, *in.OnBehalfOf)
	}
	users, err := a.Dependencies.Users(ctx, in.Ref)
	if err != nil {
		return out, err
	}
	var busy []string
	for _, user := range users {
		files, err := a.Forge.ReadDir(ctx, "", user.Dir())
		if err != nil {
			return out, classify(err)
		}
		data := files[instanceFile]
		if data == nil {
			continue
		}
		inst, err := config.ParseInstance(data)
		if err != nil {
			out.Refused = append(out.Refused, fmt.Sprintf("%s: its instance file does not parse: %v", user, err))
			continue
		}
		stack, _, err := a.instanceStack(ctx, "", inst)
		if err != nil {
			out.Refused = append(out.Refused, fmt.Sprintf("%s: its stack does not load: %v", user, err))
			continue
		}
		op, key := changedConsumer(in, user, stack, inst)
		if op == "" {
			out.Unchanged++
			continue
		}
		actor := "slipway (outputs of " + in.Ref.String() + " changed)"
		requestID := "dependency-" + key
		if op == config.OnChangeDeploy {
			err = a.Instances.Deploy(ctx, user, string(data), "", actor, requestID, 0)
		} else {
			err = a.Dependencies.Plan(ctx, user, string(data), actor, requestID)
		}
		var refused *RefusedError
		switch {
		case errors.As(err, &refused) && refused.Busy:
			busy = append(busy, user.String())
		case errors.As(err, &refused):
			out.Refused = append(out.Refused, fmt.Sprintf("%s: %v", user, err))
			out.Stale = append(out.Stale, user.String())
		case err != nil:
			return out, err
		default:
			out.Sent = append(out.Sent, user.String()+": "+op)
		}
		activity.RecordHeartbeat(ctx, len(out.Sent))
	}
	if len(busy) > 0 {
		// The retry sends the others the same request IDs: Temporal returns what it did with them.
		// They are named in the details: those still busy at the last try are marked stale.
		return out, temporal.NewApplicationError("dependents busy, asked again: "+strings.Join(busy, ", "), contract.ErrDependentsBusy, busy)
	}
	return out, nil
}

// changedConsumer is what a change of dep's outputs starts on user ("" for nothing: no consumed
// value differs from its committed parameter), and a key naming the user and the new values.
func changedConsumer(in contract.NotifyDependentsInput, user contract.Ref, stack *config.Stack, inst *config.Instance) (string, string) {
	op := ""
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n", in.Ref, user)
	for _, d := range stack.Schema.Dependencies {
		if target, err := d.Target(user.Tenant, inst.Parameters); err != nil || target != in.Ref.String() {
			continue
		}
		for _, o := range sortedOutputs(d.Outputs) {
			v, ok := in.Outputs[o]
			if !ok || v == terraform.SensitiveOutput {
				continue // the dependent's next render refuses it, naming the field
			}
			fmt.Fprintf(h, "%s=%s\n", o, v)
			if have, _ := inst.Parameters[d.Outputs[o]].(string); have != v && op != config.OnChangeDeploy {
				op = d.OnChange
			}
		}
	}
	return op, user.Tenant + "-" + user.Name + "-" + hex.EncodeToString(h.Sum(nil))[:16]
}

func sortedOutputs(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func outputNames(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	return strings.Join(sortedOutputs(m), ", ")
}

func fieldError(field, msg string) error {
	return &config.ValidationError{Errors: []config.FieldError{{Field: field, Message: msg}}}
}

// dependencyGates are the instance:T/N gates that hold a dependent until each target is Ready.
func dependencyGates(have []gates.Spec, targets []string) []gates.Spec {
	out := slices.Clone(have)
	for _, t := range targets {
		name := gates.KindInstance + ":" + t
		if !slices.ContainsFunc(out, func(g gates.Spec) bool { return g.Name == name }) {
			out = append(out, gates.Spec{Name: name})
		}
	}
	return out
}
