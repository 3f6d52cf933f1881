package client

import (
	"context"

	"github.com/slipway-dev/slipway/internal/contract"
)

// withWaiting refreshes the place of a step waiting for a capacity budget from the budget's
// semaphore: the pipeline records its place when it asks, and the queue moving records nothing.
func (c *Client) withWaiting(ctx context.Context, st *contract.Status) {
	op := st.Operation
	if op == nil || op.Result != contract.ResultRunning || op.Pipeline == "" {
		return
	}
	for i, s := range op.Steps {
		budget, ok := contract.CapacityWaitingFor(s.Detail)
		if !ok || s.Status != contract.StepRunning {
			continue
		}
		qctx, cancel := context.WithTimeout(ctx, describeTimeout)
		v, err := c.Temporal.QueryWorkflow(qctx, contract.CapacityWorkflowID(budget), "", contract.QueryCapacity, op.Pipeline)
		var p contract.CapacityPlace
		if err == nil {
			err = v.Get(&p)
		}
		cancel()
		if err == nil && !p.Granted {
			// Granted, the pipeline is about to say so itself.
			op.Steps[i].Detail = contract.CapacityWaiting(budget, p)
		}
	}
}

// waiting reports whether a step of st's operation waits for a capacity budget.
func waiting(st *contract.Status) bool {
	if !running(st) {
		return false
	}
	for _, s := range st.Operation.Steps {
		if _, ok := contract.CapacityWaitingFor(s.Detail); ok && s.Status == contract.StepRunning {
			return true
		}
	}
	return false
}
