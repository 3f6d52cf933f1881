package activities

import (
	"context"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// WorkloadChanges lists the workloads a deploy from the deployed revision to the new one deletes
// or recreates (config.WorkloadChanges), read from the instance's rendered manifests at both.
func (a *Activities) WorkloadChanges(ctx context.Context, in contract.WorkloadsInput) ([]string, error) {
	if in.From == "" || in.From == in.To {
		return nil, nil
	}
	dir := in.Ref.Dir()
	from, err := a.Forge.ReadDir(ctx, in.From, dir)
	if err != nil {
		return nil, classify(err)
	}
	to, err := a.Forge.ReadDir(ctx, in.To, dir)
	if err != nil {
		return nil, classify(err)
	}
	out, err := config.WorkloadChanges(from, to)
	if err != nil {
		return nil, invalidConfig(err)
	}
	return out, nil
}
