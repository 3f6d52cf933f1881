package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
)

// leanWhenParked is how lean this run keeps a parked instance: from version 1 it receives every
// signal in one coroutine (receiveSignals) rather than one coroutine per kind, and upserts only
// the search attributes that change; from version 2 the main loop receives them itself (inline),
// so a parked instance is one coroutine. Each coroutine is a goroutine whose stack (4 KiB at the
// least) and selector stay for as long as the workflow is cached, as does each upserted value.
func leanWhenParked(ctx workflow.Context) workflow.Version {
	if rides(ctx) {
		return 2
	}
	return workflow.GetVersion(ctx, changeLeanParked, workflow.DefaultVersion, 2)
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

// receiveSignals is every signal receiver of the instance in one coroutine (lean version 1).
func (e *entity) receiveSignals(ctx workflow.Context) {
	e.openInbox(ctx)
	sel := workflow.NewSelector(ctx)
	for i, c := range e.inbox {
		sel.AddReceive(c, func(workflow.ReceiveChannel, bool) { e.receive(ctx, i) })
	}
	for {
		sel.Select(ctx)
	}
}

// The instance's signal channels (entity.inbox), in the order they are taken when several wait.
const (
	inStep = iota
	inObserved
	inWatch
	inCleared
	inTargetFailed
	inApproval
	inRefused
	inRelayedRefusal
	inDependentGone
	inDependencyStale
	inRetrying
	inboxSize
)

func (e *entity) openInbox(ctx workflow.Context) {
	e.inbox = [inboxSize]workflow.ReceiveChannel{e.stepsChan, e.observeChan, e.watchChan, e.clearedChan,
		workflow.GetSignalChannel(ctx, contract.SignalGateTargetFailed), workflow.GetSignalChannel(ctx, contract.SignalAwaitingApproval),
		workflow.GetSignalChannel(ctx, attest.SignalRefused), workflow.GetSignalChannel(ctx, SignalRefusal),
		workflow.GetSignalChannel(ctx, contract.SignalDependentGone), workflow.GetSignalChannel(ctx, contract.SignalDependencyStale),
		workflow.GetSignalChannel(ctx, contract.SignalStepRetrying)}
}

// signalled reports whether an inline run (lean version 2) has a signal to receive.
func (e *entity) signalled() bool {
	if !e.inline {
		return false
	}
	for _, c := range e.inbox {
		if c.Len() > 0 {
			return true
		}
	}
	return false
}

// receiveSignal has an inline run's main loop receive one signal, if one came; it never blocks.
// It takes no selector: one kept per cached instance cost more than the instance's own state.
func (e *entity) receiveSignal(ctx workflow.Context) bool {
	if !e.inline {
		return false
	}
	for i, c := range e.inbox {
		if c.Len() > 0 {
			e.receive(ctx, i)
			return true
		}
	}
	return false
}

// receive takes the signal waiting on inbox[i] and handles it: at once if its handler never
// waits, in its kind's lane otherwise.
func (e *entity) receive(ctx workflow.Context, i int) {
	c := e.inbox[i]
	switch i {
	case inStep:
		var ev contract.StepEvent
		c.Receive(ctx, &ev)
		e.applyStep(ev)
		e.clearRetrying(ctx)
		e.showDetails(ctx)
	case inObserved:
		var obs contract.Observation
		c.Receive(ctx, &obs)
		e.observing.push(ctx, func(ctx workflow.Context) { e.observed(ctx, obs) })
	case inWatch:
		var w contract.ReadyWatch
		c.Receive(ctx, &w)
		e.gating.push(ctx, func(ctx workflow.Context) { e.addWatch(ctx, w) })
	case inCleared:
		var w contract.ReadyWatch
		c.Receive(ctx, &w)
		e.gating.push(ctx, func(ctx workflow.Context) {
			e.dropGate(ctx, w.Gate, "cleared", w.Workflow, "that instance is Ready")
		})
	case inTargetFailed:
		var f TargetFailure
		c.Receive(ctx, &f)
		e.gating.push(ctx, func(ctx workflow.Context) { e.targetFailed(ctx, f) })
	case inApproval:
		var w contract.ApprovalWait
		c.Receive(ctx, &w)
		e.approving.push(ctx, func(ctx workflow.Context) { e.awaitApproval(ctx, w) })
	case inRefused:
		var r attest.Refusal
		c.Receive(ctx, &r)
		e.audit(ctx, contract.AuditRecord{At: r.At, Decision: AuditRefused, Request: "signal " + r.Signal, Reason: r.Why})
	case inRelayedRefusal:
		var r RelayedRefusal
		c.Receive(ctx, &r)
		e.audit(ctx, contract.AuditRecord{At: r.Refusal.At, Decision: AuditRefused, Request: "signal " + r.Refusal.Signal,
			Workflow: r.Workflow, Reason: r.Refusal.Why})
	case inDependentGone:
		var g contract.DependentGone
		c.Receive(ctx, &g)
		e.dependentGone(g)
	case inDependencyStale:
		var m contract.DependencyStale
		c.Receive(ctx, &m)
		e.dependencyStale(ctx, m)
	case inRetrying:
		var r contract.StepRetry
		c.Receive(ctx, &r)
		e.retries.push(ctx, func(ctx workflow.Context) { e.stepRetrying(ctx, r) })
	}
}
