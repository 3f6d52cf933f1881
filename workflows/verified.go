package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/identity"
)

// verifiedActor is the verified actor of the update (or start) being handled.
// An operation the workflow starts itself for a person (expiry, onBehalf) is theirs.
func verifiedActor(ctx workflow.Context) (identity.Actor, bool) {
	if a, ok := onBehalf(ctx); ok {
		return a, true
	}
	return attest.Verified(ctx)
}

// onBehalfOf is the actor a request slipway sends because a has asked is sent for: a itself,
// or nil (the worker's own) when a is one of slipway's components or unknown.
func onBehalfOf(a *identity.Actor) *identity.Actor {
	if a == nil || a.Kind == identity.Service {
		return nil
	}
	return a
}

// queryActor is the verified actor of the query being answered.
func queryActor(ctx workflow.Context) (identity.Actor, bool) { return attest.Querier(ctx) }
