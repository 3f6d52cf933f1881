package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
)

// poolRegistrationsPerRun bounds the registry's history: workers restart, the record stays.
const poolRegistrationsPerRun = 200

// ControlPlaneWorkflow keeps a pool's latest registration (its self, task queue and mirror).
func ControlPlaneWorkflow(ctx workflow.Context, p controlplane.Pool) error {
	if err := workflow.SetQueryHandler(ctx, contract.QueryPool, func() (controlplane.Pool, error) { return p, nil }); err != nil {
		return err
	}
	ch := workflow.GetSignalChannel(ctx, contract.SignalRegisterPool)
	for n := 0; n < poolRegistrationsPerRun; n++ {
		var next controlplane.Pool
		ch.Receive(ctx, &next)
		p = next
	}
	// Registrations that arrived meanwhile are carried over: the latest one wins.
	for {
		var next controlplane.Pool
		if !ch.ReceiveAsync(&next) {
			break
		}
		p = next
	}
	return workflow.NewContinueAsNewError(ctx, contract.ControlPlaneWorkflowName, p)
}
