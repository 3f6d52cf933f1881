package workflows

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// budgetFor is the capacity budget terraform step op (apply, destroy) of the stack draws on; "" for none.
func (p *pipeline) budgetFor(op string) string {
	c := p.progress.Controls
	if c == nil || c.Capacity == nil {
		return ""
	}
	if op == "destroy" {
		return c.Capacity.Destroy
	}
	return c.Capacity.Apply
}

// drawCapacity waits, durably, for a slot of the budget step (tf-apply, tf-destroy) draws on and
// returns what gives the slot back. A stack that names no budget waits for nothing and records
// nothing; a step granted at once records one activity, and one release signal when it ends.
func (p *pipeline) drawCapacity(ctx workflow.Context, step, op string) (release func(), err error) {
	budget := p.budgetFor(op)
	if budget == "" || !drawsCapacity(ctx) {
		return func() {}, nil
	}
	granted := workflow.GetSignalChannel(ctx, contract.SignalCapacityGranted)
	var stale string
	for granted.ReceiveAsync(&stale) {
		// a grant an earlier retried request already answered
	}
	info := workflow.GetInfo(ctx)
	holder := contract.CapacityHolder{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID,
		Priority: info.Priority.PriorityKey, Tenant: p.in.Ref.Tenant}
	release = func() {
		// Given back even when the pipeline is being cancelled; the semaphore also takes back a
		// slot whose pipeline closed without this (capacityCheck).
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		if err := workflow.SignalExternalWorkflow(dctx, contract.CapacityWorkflowID(budget), "", contract.SignalCapacityRelease, holder.WorkflowID).Get(dctx, nil); err != nil {
			workflow.GetLogger(ctx).Warn("could not release the capacity slot", "budget", budget, "error", err)
		}
	}
	var place contract.CapacityPlace
	req := contract.CapacityRequest{Budget: budget, Holder: holder}
	if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActCapacityAcquire, req).Get(ctx, &place); err != nil {
		if temporal.IsCanceledError(err) {
			release()
		}
		return nil, err
	}
	if place.Granted {
		return release, nil
	}
	line := contract.CapacityWaiting(budget, place)
	since := workflow.Now(ctx)
	p.notify(contract.StepRecord{Name: step, Status: contract.StepRunning, Attempt: p.in.Attempt, StartedAt: since, Detail: line})
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("%s %s: step %s %s", p.in.Operation, p.in.Ref, step, line))
	got := false
	for !got && ctx.Err() == nil {
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(granted, func(c workflow.ReceiveChannel, _ bool) {
			var b string
			c.Receive(ctx, &b)
			got = b == budget
		})
		sel.AddReceive(ctx.Done(), func(workflow.ReceiveChannel, bool) {})
		sel.Select(ctx)
	}
	if !got {
		release() // leaves the queue
		return nil, temporal.NewCanceledError()
	}
	p.notify(contract.StepRecord{Name: step, Status: contract.StepRunning, Attempt: p.in.Attempt, StartedAt: since,
		Detail: fmt.Sprintf("slot of budget %s granted after %s", budget, workflow.Now(ctx).Sub(since).Round(1e9))})
	return release, nil
}
