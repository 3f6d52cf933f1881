package activities

import (
	"context"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// BootstrapSecrets creates, in the secret store, every secret the instance's stack
// declares that does not exist yet (EDP's first-deploy bootstrap). Only the
// names leave the activity.
func (a *Activities) BootstrapSecrets(ctx context.Context, in contract.SecretsInput) (contract.SecretsOutput, error) {
	if err := a.fence(ctx); err != nil {
		return contract.SecretsOutput{}, err
	}
	inst, err := a.committedInstance(ctx, in.Revision, in.Ref)
	if err != nil {
		return contract.SecretsOutput{}, err
	}
	if inst == nil {
		return contract.SecretsOutput{}, notFoundf("no config for %s at %s", in.Ref, in.Revision)
	}
	stack, _, err := a.instanceStack(ctx, in.Revision, inst)
	if err != nil {
		return contract.SecretsOutput{}, err
	}
	names := stack.Schema.Secrets
	created, err := a.Secrets.Ensure(ctx, in.Ref.Tenant, in.Ref.Name, names)
	if err != nil {
		return contract.SecretsOutput{}, err
	}
	return contract.SecretsOutput{Names: append([]string{}, names...), Created: created}, nil
}

// ForgetSecrets deletes the instance's secrets once it is deprovisioned, and its terraform's
// PostgreSQL role: its infrastructure is gone, so nothing will run terraform for it again.
func (a *Activities) ForgetSecrets(ctx context.Context, ref contract.Ref) error {
	if err := a.fence(ctx); err != nil {
		return err
	}
	if err := a.Secrets.Forget(ctx, ref.Tenant, ref.Name); err != nil {
		return err
	}
	if d, ok := a.Terraform.(roleDropper); ok {
		return classify(d.DropRole(ctx, workspace(ref)))
	}
	return nil
}

// roleDropper is a Terraform that keeps a PostgreSQL role per instance (terraform.WithPGRoles).
type roleDropper interface {
	DropRole(ctx context.Context, ws terraform.Workspace) error
}
