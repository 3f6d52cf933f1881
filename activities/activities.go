// Package activities holds slipway's side effects: one Activities struct with
// its clients injected, registered once per worker. Every method is idempotent:
// external effects are keyed by the operation and step, never by the attempt.
package activities

import (
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/secrets"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// Activities are the steps' side effects, over injected clients.
type Activities struct {
	Forge     forge.Forge
	Terraform *terraform.Runner
	Deployer  deploy.Deployer
	Secrets   *secrets.Store
}

func configRef(r steps.Ref) config.Ref { return config.Ref{Tenant: r.Tenant, Name: r.Name} }

func workspace(r steps.Ref) terraform.Workspace {
	return terraform.Workspace{Tenant: r.Tenant, Name: r.Name}
}
