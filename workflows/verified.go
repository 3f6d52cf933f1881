package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/identity"
)

// verifiedActor is the verified actor of the update (or start) being handled.
func verifiedActor(ctx workflow.Context) (identity.Actor, bool) { return attest.Verified(ctx) }

// queryActor is the verified actor of the query being answered.
func queryActor(ctx workflow.Context) (identity.Actor, bool) { return attest.Querier(ctx) }
