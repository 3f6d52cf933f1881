package workflows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// Gate bookkeeping.
const (
	gateLogKept = 50
	// askAgain is how often a gated instance asks an instance:T/N target that could not be
	// reached (it does not exist yet) to tell it when it is Ready.
	askAgain = 5 * time.Second
)

var errGateCancelled = errors.New("cancelled at the scheduling gates")

// gateTimeoutError names the gates whose timeout ran out.
type gateTimeoutError struct{ gates []string }

func (e *gateTimeoutError) Error() string { return "gate(s) timed out: " + strings.Join(e.gates, ", ") }

func (e *entity) gate(name string) int {
	return slices.IndexFunc(e.s.Gates, func(g contract.Gate) bool { return g.Name == name })
}

func (e *entity) admitGateAdd(req contract.GateRequest) error {
	if err := gates.Check(req.Name); err != nil {
		return notAllowed("%s: %v", e.s.Ref, err)
	}
	if err := gates.CheckTenant(e.s.Ref.Tenant, req.Name); err != nil {
		return notAllowed("%s: %v", e.s.Ref, err)
	}
	if err := gates.CheckTimeout(req.Name, req.Timeout); err != nil {
		return notAllowed("%s: %v", e.s.Ref, err)
	}
	if e.gate(req.Name) >= 0 {
		return notAllowed("%s: gate %q is already set", e.s.Ref, req.Name)
	}
	return nil
}

func (e *entity) admitGateRemove(req contract.GateRequest) error {
	if e.gate(req.Name) < 0 {
		return notAllowed("%s: no gate %q; its gates are: %s", e.s.Ref, req.Name, e.gateNames())
	}
	return nil
}

func (e *entity) gateNames() string {
	if len(e.s.Gates) == 0 {
		return "none"
	}
	var names []string
	for _, g := range e.s.Gates {
		names = append(names, g.Name)
	}
	return strings.Join(names, ", ")
}

func (e *entity) logGate(ctx workflow.Context, gate, action, actor, reason string) {
	e.s.GateLog = append(e.s.GateLog, contract.GateRecord{Gate: gate, Action: action, Actor: actor, Reason: reason, At: workflow.Now(ctx)})
	if len(e.s.GateLog) > gateLogKept {
		e.s.GateLog = e.s.GateLog[len(e.s.GateLog)-gateLogKept:]
	}
}

func (e *entity) addGate(ctx workflow.Context, spec gates.Spec, source, actor, reason string) {
	e.s.Gates = append(e.s.Gates, contract.Gate{Spec: spec, Source: source, Actor: actor, AddedAt: workflow.Now(ctx)})
	e.logGate(ctx, spec.Name, "added", actor, reason)
	e.gatesChanged++
	if e.s.Waiting != nil {
		e.watchReady(ctx, spec.Name)
	}
	e.upsertSearchAttributes(ctx)
}

func (e *entity) dropGate(ctx workflow.Context, name, action, actor, reason string) {
	if i := e.gate(name); i >= 0 {
		e.s.Gates = slices.Delete(e.s.Gates, i, i+1)
		e.logGate(ctx, name, action, actor, reason)
		e.gatesChanged++
		e.upsertSearchAttributes(ctx)
	}
}

// awaitGates holds a provision or deploy while any gate is set: durably (the wait is this
// workflow's), visibly (condition Scheduled=False, search attribute InstanceGated), and without
// polling (removing the last gate, or a built-in one clearing, wakes it at once).
func (e *entity) awaitGates(ctx workflow.Context, kind lifecycle.Operation, actor string, fromFile []gates.Spec) error {
	for _, spec := range fromFile {
		if e.gate(spec.Name) < 0 {
			e.addGate(ctx, spec, "file", actor, "schedulingGates in the instance file")
		}
	}
	if len(e.s.Gates) == 0 {
		return nil
	}
	e.s.Waiting = &contract.GateWait{Operation: kind, Actor: actor, Since: workflow.Now(ctx)}
	e.holding = fmt.Sprintf("%s waiting at scheduling gates (%s)", kind, e.gateNames())
	e.cancelled = false
	defer func() { e.s.Waiting, e.holding = nil, ""; e.upsertSearchAttributes(ctx) }()
	for _, g := range e.s.Gates {
		e.watchReady(ctx, g.Name)
	}
	e.upsertSearchAttributes(ctx)
	for {
		if e.cancelled {
			return errGateCancelled
		}
		if len(e.s.Gates) == 0 {
			return nil
		}
		seen := e.gatesChanged
		woke := func() bool { return e.cancelled || e.gatesChanged != seen }
		wait, timed := e.nextGateDeadline(workflow.Now(ctx))
		if unasked := e.unaskedGates(); len(unasked) > 0 {
			// A target that does not exist yet cannot be told; ask it again a little later.
			if !timed || wait > askAgain {
				if _, err := workflow.AwaitWithTimeout(ctx, askAgain, woke); err != nil {
					return err
				}
				for _, name := range e.unaskedGates() {
					e.watchReady(ctx, name)
				}
				continue
			}
		}
		if !timed {
			if err := workflow.Await(ctx, woke); err != nil {
				return err
			}
			continue
		}
		if wait <= 0 {
			return &gateTimeoutError{gates: e.timedOutGates(workflow.Now(ctx))}
		}
		if _, err := workflow.AwaitWithTimeout(ctx, wait, woke); err != nil {
			return err
		}
	}
}

// nextGateDeadline is how long until the first gate with a timeout runs out.
func (e *entity) nextGateDeadline(now time.Time) (time.Duration, bool) {
	var next time.Duration
	found := false
	for _, g := range e.s.Gates {
		if d, ok := e.gateDeadline(g); ok && (!found || d.Sub(now) < next) {
			next, found = d.Sub(now), true
		}
	}
	return next, found
}

// timedOutGates names the gates whose timeout ran out.
func (e *entity) timedOutGates(now time.Time) []string {
	var out []string
	for _, g := range e.s.Gates {
		if d, ok := e.gateDeadline(g); ok && !now.Before(d) {
			out = append(out, fmt.Sprintf("%s (timeout %s)", g.Name, g.Timeout))
		}
	}
	return out
}

// gateDeadline is when g's timeout runs out, counted from when the wait began or the gate was
// added, whichever is later; ok is false for a gate without one.
func (e *entity) gateDeadline(g contract.Gate) (time.Time, bool) {
	if g.Timeout <= 0 {
		return time.Time{}, false
	}
	from := g.AddedAt
	if e.s.Waiting.Since.After(from) {
		from = e.s.Waiting.Since
	}
	return from.Add(g.Timeout), true
}

// watchReady asks an instance:T/N gate's target to say when it is Ready.
func (e *entity) watchReady(ctx workflow.Context, name string) {
	target, ok := gates.Instance(name)
	if !ok {
		return
	}
	tenant, n, _ := strings.Cut(target, "/")
	// A dependency's gate registers this instance as its dependent when it clears.
	w := contract.ReadyWatch{Workflow: contract.InstanceWorkflowID(e.s.Ref), Gate: name, Dependency: slices.Contains(e.s.Dependencies, target)}
	err := workflow.SignalExternalWorkflow(ctx, contract.InstanceWorkflowID(contract.Ref{Tenant: tenant, Name: n}), "", contract.SignalWatchReady, w).Get(ctx, nil)
	if i := e.gate(name); i >= 0 {
		e.s.Gates[i].Note = ""
		if err != nil {
			e.s.Gates[i].Note = fmt.Sprintf("instance %s cannot be reached yet (%s); asked again every %s", target, errorMessage(err), askAgain)
		}
	}
}

// unaskedGates are the instance gates whose target could not be reached.
func (e *entity) unaskedGates() []string {
	var out []string
	for _, g := range e.s.Gates {
		if _, ok := gates.Instance(g.Name); ok && g.Note != "" {
			out = append(out, g.Name)
		}
	}
	return out
}

// receiveGateSignals serves both sides of instance gates: watch requests from gated instances,
// and clearances from the instances they wait for.
func (e *entity) receiveGateSignals(ctx workflow.Context) {
	for {
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(e.watchChan, func(c workflow.ReceiveChannel, more bool) {
			var w contract.ReadyWatch
			c.Receive(ctx, &w)
			e.addWatch(ctx, w)
		})
		sel.AddReceive(e.clearedChan, func(c workflow.ReceiveChannel, more bool) {
			var w contract.ReadyWatch
			c.Receive(ctx, &w)
			e.dropGate(ctx, w.Gate, "cleared", w.Workflow, "that instance is Ready")
		})
		sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SignalGateTargetFailed), func(c workflow.ReceiveChannel, more bool) {
			var f TargetFailure
			c.Receive(ctx, &f)
			e.targetFailed(ctx, f)
		})
		sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SignalDependentGone), func(c workflow.ReceiveChannel, more bool) {
			var g contract.DependentGone
			c.Receive(ctx, &g)
			e.dependentGone(g)
		})
		sel.AddReceive(workflow.GetSignalChannel(ctx, contract.SignalDependencyStale), func(c workflow.ReceiveChannel, more bool) {
			var m contract.DependencyStale
			c.Receive(ctx, &m)
			e.dependencyStale(ctx, m)
		})
		sel.Select(ctx)
	}
}

// drainGateSignals applies what arrived before the run closes.
func (e *entity) drainGateSignals(ctx workflow.Context) {
	var w contract.ReadyWatch
	for e.watchChan.ReceiveAsync(&w) {
		e.addWatch(ctx, w)
	}
	for e.clearedChan.ReceiveAsync(&w) {
		e.dropGate(ctx, w.Gate, "cleared", w.Workflow, "that instance is Ready")
	}
	var f TargetFailure
	for workflow.GetSignalChannel(ctx, contract.SignalGateTargetFailed).ReceiveAsync(&f) {
		e.targetFailed(ctx, f)
	}
	var g contract.DependentGone
	for workflow.GetSignalChannel(ctx, contract.SignalDependentGone).ReceiveAsync(&g) {
		e.dependentGone(g)
	}
	var m contract.DependencyStale
	for workflow.GetSignalChannel(ctx, contract.SignalDependencyStale).ReceiveAsync(&m) {
		e.dependencyStale(ctx, m)
	}
}

func (e *entity) addWatch(ctx workflow.Context, w contract.ReadyWatch) {
	// Only a dependent sent since dependents register sets Dependency: older histories never get here.
	if w.Dependency && e.tearingDown() {
		e.refuseDependent(ctx, w)
		return
	}
	if e.condition(lifecycle.CondReady).Status == lifecycle.ConditionTrue {
		e.clearWatch(ctx, w)
		return
	}
	if !slices.Contains(e.s.ReadyWatchers, w) {
		e.s.ReadyWatchers = append(e.s.ReadyWatchers, w)
		if e.s.State.Failed() && tracksDependencies(ctx) {
			e.tellWatcherFailed(ctx, w, e.s.Current) // failed already: the watcher hears it now, not at its timeout
		}
	}
}

// tellReadyWatchers clears the gates waiting for this instance, now that it is Ready.
// While it is torn down, its dependents' watches wait (it may be provisioned again).
func (e *entity) tellReadyWatchers(ctx workflow.Context) {
	watchers := e.s.ReadyWatchers
	e.s.ReadyWatchers = nil
	for _, w := range watchers {
		if w.Dependency && e.tearingDown() {
			e.s.ReadyWatchers = append(e.s.ReadyWatchers, w)
			continue
		}
		e.clearWatch(ctx, w)
	}
}

func (e *entity) clearWatch(ctx workflow.Context, w contract.ReadyWatch) {
	if w.Dependency {
		e.addDependent(w)
	}
	// A watcher that has closed meanwhile has nothing left to wait for.
	_ = workflow.SignalExternalWorkflow(ctx, w.Workflow, "", contract.SignalGateCleared, contract.ReadyWatch{Workflow: contract.InstanceWorkflowID(e.s.Ref), Gate: w.Gate}).Get(ctx, nil)
}

// scheduledCondition is Scheduled=False while gates are set; nil when there are none.
func (e *entity) scheduledCondition() *lifecycle.Condition {
	if c := e.windowCondition(); c != nil {
		return c
	}
	if len(e.s.Gates) == 0 {
		return nil
	}
	msg := "gates: " + e.gateNames()
	if w := e.s.Waiting; w != nil {
		msg += fmt.Sprintf("; %s waiting since %s", w.Operation, stamp(w.Since))
	}
	reason := "SchedulingGated"
	if failed := e.failedTargets(); len(failed) > 0 {
		reason, msg = contract.ReasonDependencyFailed, "dependency failed: "+strings.Join(failed, "; ")+"; "+msg
	}
	c := cond(contract.CondScheduled, lifecycle.ConditionFalse, reason, msg)
	return &c
}

func (e *entity) registerGates(ctx workflow.Context) error {
	handlers := map[string]struct {
		admit func(contract.GateRequest) error
		apply func(workflow.Context, contract.GateRequest)
	}{
		contract.UpdateGateAdd: {e.admitGateAdd, func(ctx workflow.Context, req contract.GateRequest) {
			e.addGate(ctx, gates.Spec{Name: req.Name, Timeout: req.Timeout}, "cli", req.Actor, req.Reason)
		}},
		contract.UpdateGateRemove: {e.admitGateRemove, func(ctx workflow.Context, req contract.GateRequest) {
			e.dropGate(ctx, req.Name, "removed", req.Actor, req.Reason)
		}},
		contract.UpdateCancel: {e.admitCancel, func(ctx workflow.Context, req contract.GateRequest) {
			if e.s.Waiting == nil {
				e.stopRunning(ctx, req.Actor, req.Reason, "")
				return
			}
			e.cancelled = true
			e.logGate(ctx, e.gateNames(), "cancelled", req.Actor, req.Reason)
		}},
	}
	for _, name := range []string{contract.UpdateGateAdd, contract.UpdateGateRemove, contract.UpdateCancel} {
		h := handlers[name]
		err := workflow.SetUpdateHandlerWithOptions(ctx, name,
			func(ctx workflow.Context, req contract.GateRequest) ([]contract.Gate, error) {
				if err := h.admit(req); err != nil {
					return nil, err
				}
				// The gate log names who asked as verified; what the request says is only a note.
				if a, ok := verifiedActor(ctx); ok {
					req.Actor = a.String()
				}
				h.apply(ctx, req)
				return e.s.Gates, nil
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.GateRequest) error { return h.admit(req) }})
		if err != nil {
			return err
		}
	}
	return nil
}

// gated holds kind at the gates. held says the operation ended there: cancelled (nothing was
// done, the state is as it was) or timed out (a <Op>Failed with no leftovers).
func (e *entity) gated(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest, fromFile []gates.Spec) (contract.OperationResult, bool) {
	return e.held(ctx, kind, req, e.awaitGates(ctx, kind, req.Actor, fromFile))
}

// held ends kind when its wait (at the gates or for a change window) ended with err; false when
// err is nil and the operation goes on.
func (e *entity) held(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest, err error) (contract.OperationResult, bool) {
	if err == nil {
		return contract.OperationResult{}, false
	}
	now := workflow.Now(ctx)
	var timeout *gateTimeoutError
	var window *windowError
	e.s.Seq++
	op := &contract.Operation{ID: fmt.Sprintf("%d-%s", e.s.Seq, e.s.Epoch), Kind: kind, RequestID: requestID(ctx),
		Actor: req.Actor, From: e.s.State, Attempt: 1, ConfigYAML: req.ConfigYAML, StartedAt: now, EndedAt: now, Rollout: req.Rollout}
	e.pushCurrent(op)
	switch {
	case errors.Is(err, errGateCancelled):
		op.Result = contract.ResultCancelled
	case errors.As(err, &timeout):
		timedOut := timeout.gates
		for _, g := range timedOut {
			e.logGate(ctx, g, "timed-out", "", "")
		}
		op.Result = contract.ResultFailed
		op.Failure = &contract.Failure{Step: "scheduling-gate", Type: "GateTimeout", Leftovers: []contract.Leftover{}, At: now,
			Error: fmt.Sprintf("%s did not start: gate(s) %s did not clear in time; nothing was changed", kind, strings.Join(timedOut, ", "))}
		e.setState(ctx, kind.Failed(op.From))
		e.notify(ctx, notify.KindFailed, fmt.Sprintf("%s of %s failed at its scheduling gates: %s", kind, e.s.Ref, op.Failure.Error), nil)
		e.tellRollout(ctx, op)
	case errors.As(err, &window):
		op.Result = contract.ResultFailed
		op.Failure = &contract.Failure{Step: "change-window", Type: "OutsideChangeWindow", Leftovers: []contract.Leftover{}, At: now,
			Error: fmt.Sprintf("%s did not start: %s; nothing was changed", kind, errorMessage(window.err))}
		e.tellRollout(ctx, op)
	default:
		op.Result = contract.ResultFailed
		op.Failure = &contract.Failure{Step: "scheduling-gate", Error: errorMessage(err), Leftovers: []contract.Leftover{}, At: now}
	}
	return e.result(op), true
}
