package activities

import (
	"context"

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
		return notAllowedf("this worker has no Temporal client to look up control planes")
	}
	pools, err := a.ControlPlanes.Pools(ctx)
	if err != nil {
		return err
	}
	if err := controlplane.Admit(in.Ref.String(), in.Operation, in.Pool, pools); err != nil {
		return notAllowedf("%s: controlPlane: %v", in.Ref.String(), err)
	}
	return nil
}
