package activities

import (
	"context"

	"github.com/slipway-dev/slipway/internal/steps"
)

// BootstrapSecrets creates, in the secret store, every secret the instance's stack
// declares that does not exist yet (EDP's first-deploy bootstrap). Only the
// names leave the activity.
func (a *Activities) BootstrapSecrets(ctx context.Context, in steps.SecretsInput) (steps.SecretsOutput, error) {
	inst, err := a.committedInstance(ctx, in.Revision, in.Ref)
	if err != nil {
		return steps.SecretsOutput{}, err
	}
	if inst == nil {
		return steps.SecretsOutput{}, notFoundf("no config for %s at %s", in.Ref, in.Revision)
	}
	stack, err := a.loadStack(ctx, in.Revision, inst.Stack)
	if err != nil {
		return steps.SecretsOutput{}, err
	}
	names := stack.Schema.Secrets
	created, err := a.Secrets.Ensure(ctx, in.Ref.Tenant, in.Ref.Name, names)
	if err != nil {
		return steps.SecretsOutput{}, err
	}
	return steps.SecretsOutput{Names: append([]string{}, names...), Created: created}, nil
}

// ForgetSecrets deletes the instance's secrets once it is deprovisioned.
func (a *Activities) ForgetSecrets(ctx context.Context, ref steps.Ref) error {
	return a.Secrets.Forget(ctx, ref.Tenant, ref.Name)
}
