package activities

import (
	"context"
	"errors"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/names"
)

// NameRegistry records which instance holds each derived name, for every worker at once
// (internal/nameclaim keeps it in Temporal).
type NameRegistry interface {
	// Claim takes every claim for owner (TENANT/NAME), or none: one another instance holds
	// is a *names.TakenError. Claims owner already holds are success.
	Claim(ctx context.Context, owner string, claims []names.Claim) error
	// Release gives up owner's claims; claims owner does not hold are left alone.
	Release(ctx context.Context, owner string, claims []names.Claim) error
}

// ClaimNames claims the names a provision derived; a name another instance holds refuses the
// provision, naming that instance, so no two instances ever share a namespace, Application
// or schema.
func (a *Activities) ClaimNames(ctx context.Context, in contract.NamesInput) error {
	// A new ref only: an instance claiming the legacy names it has had all along keeps them,
	// even one the old rule made too long for its system (it never got that schema).
	if !in.Legacy {
		if err := in.Names.Validate(); err != nil {
			return notAllowedf("%s: %v", in.Ref, err)
		}
		if err := a.Reserved.Check(in.Ref.Tenant, in.Ref.Name); err != nil {
			return notAllowedf("%v", err)
		}
	}
	err := a.Names.Claim(ctx, in.Ref.String(), in.Names.Claims())
	var taken *names.TakenError
	if errors.As(err, &taken) {
		return notAllowedf("%s: %v; choose another name", in.Ref, taken)
	}
	return err
}

// ReleaseNames gives up a deprovisioned instance's names so a later provision can take them.
func (a *Activities) ReleaseNames(ctx context.Context, in contract.NamesInput) error {
	return a.Names.Release(ctx, in.Ref.String(), in.Names.Claims())
}
