package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// NameClaimWorkflow holds its name until its owner releases it. A claim starts with a start
// delay (internal/nameclaim) and is terminated on release, so this runs only for a claim held past
// the delay or started before claims had one.
func NameClaimWorkflow(ctx workflow.Context, in contract.NameClaim) error {
	ch := workflow.GetSignalChannel(ctx, contract.SignalRelease)
	for {
		var owner string
		ch.Receive(ctx, &owner)
		if owner == in.Owner {
			return nil
		}
		workflow.GetLogger(ctx).Warn("release by another instance ignored", "name", in.Value, "owner", in.Owner, "from", owner)
	}
}
