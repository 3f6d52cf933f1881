package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
)

// ControlPlanes lists the worker pools that registered themselves; set from the worker's client.
type ControlPlanes interface {
	Pools(ctx context.Context) ([]controlplane.Pool, error)
}

// CheckControlPlane refuses, before anything changes, an operation for an unknown pool or one
// that would have a pool take down the instance it runs on.
func (a *Activities) CheckControlPlane(ctx context.Context, in contract.ControlPlaneInput) error {
	if a.ControlPlanes == nil {
		return temporal.NewNonRetryableApplicationError("this worker has no Temporal client to look up control planes", contract.ErrNotAllowed, nil)
	}
	pools, err := a.ControlPlanes.Pools(ctx)
	if err != nil {
		return err
	}
	if err := controlplane.Admit(in.Ref.String(), in.Operation, in.Pool, pools); err != nil {
		return temporal.NewNonRetryableApplicationError(in.Ref.String()+": controlPlane: "+err.Error(), contract.ErrNotAllowed, nil)
	}
	return nil
}
