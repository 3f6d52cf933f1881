package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
)

// leanWhenParked reports whether this run receives every signal in one coroutine
// (receiveSignals) rather than one coroutine per kind, and upserts only the search attributes
// that change: each coroutine is a goroutine with its own stack, and each upserted value a
// payload, kept for as long as the workflow is cached, which is most of a parked instance's memory.
func leanWhenParked(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeLeanParked, workflow.DefaultVersion, 1) >= 1
}

// lane handles one kind of signal in the order they came, in a coroutine that lives only while
// it has work: a handler that waits (a notification's start, a signal to another workflow) holds
// up its own kind only, as a receiving coroutine of its own did.
type lane struct {
	queue   []func(workflow.Context)
	running bool
}

func (l *lane) push(ctx workflow.Context, fn func(workflow.Context)) {
	l.queue = append(l.queue, fn)
	if l.running {
		return
	}
	l.running = true
	workflow.Go(ctx, func(ctx workflow.Context) {
		l.drain(ctx)
		l.running = false
	})
}

// drain runs what is queued now; the run's end calls it for what a waiting handler held back.
func (l *lane) drain(ctx workflow.Context) {
	for len(l.queue) > 0 {
		fn := l.queue[0]
		l.queue = l.queue[1:]
		fn(ctx)
	}
}

// receiveSignals is every signal receiver of the instance in one coroutine. Handlers that never
// wait run here; the others run in their kind's lane.
func (e *entity) receiveSignals(ctx workflow.Context) {
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(e.stepsChan, func(c workflow.ReceiveChannel, _ bool) {
		var ev contract.StepEvent
		c.Receive(ctx, &ev)
		e.applyStep(ev)
		e.showDetails(ctx)
	})
	sel.AddReceive(e.observeChan, func(c workflow.ReceiveChannel, _ bool) {
		var obs contract.Observation
		c.Receive(ctx, &obs)
		e.observing.push(ctx, func(ctx workflow.Context) { e.observed(ctx, obs) })
	})
	sel.AddReceive(e.watchChan, func(c workflow.ReceiveChannel, _ bool) {
		var w contract.ReadyWatch
		c.Receive(ctx, &w)
		e.gating.push(ctx, func(ctx workflow.Context) { e.addWatch(ctx, w) })
	})
	sel.AddReceive(e.clearedChan, func(c workflow.ReceiveChannel, _ bool) {
		var w contract.ReadyWatch
		c.Receive(ctx, &w)
		e.gating.push(ctx, func(ctx workflow.Context) {
			e.dropGate(ctx, w.Gate, "cleared", w.Workflow, "that instance is Ready")
		})
	})
	sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SignalGateTargetFailed), func(c workflow.ReceiveChannel, _ bool) {
		var f TargetFailure
		c.Receive(ctx, &f)
		e.gating.push(ctx, func(ctx workflow.Context) { e.targetFailed(ctx, f) })
	})
	sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SignalAwaitingApproval), func(c workflow.ReceiveChannel, _ bool) {
		var w contract.ApprovalWait
		c.Receive(ctx, &w)
		e.approving.push(ctx, func(ctx workflow.Context) { e.awaitApproval(ctx, w) })
	})
	sel.AddReceive(workflow.GetSignalChannel(ctx, attest.SignalRefused), func(c workflow.ReceiveChannel, _ bool) {
		var r attest.Refusal
		c.Receive(ctx, &r)
		e.audit(ctx, contract.AuditRecord{At: r.At, Decision: AuditRefused, Request: "signal " + r.Signal, Reason: r.Why})
	})
	sel.AddReceive(workflow.GetSignalChannel(ctx, SignalRefusal), func(c workflow.ReceiveChannel, _ bool) {
		var r RelayedRefusal
		c.Receive(ctx, &r)
		e.audit(ctx, contract.AuditRecord{At: r.Refusal.At, Decision: AuditRefused, Request: "signal " + r.Refusal.Signal,
			Workflow: r.Workflow, Reason: r.Refusal.Why})
	})
	for {
		sel.Select(ctx)
	}
}
