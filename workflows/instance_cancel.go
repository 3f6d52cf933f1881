package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// canStop reports whether a running provision or deploy may be stopped now: its pipeline runs
// and no one has stopped it yet.
func (e *entity) canStop() bool {
	op := e.s.Current
	return e.busy && e.stop != nil && op != nil && op.Result == contract.ResultRunning && op.Cancel == nil && e.s.State.Cancellable()
}

// admitCancel accepts a cancel of an operation waiting at its gates or of a running provision or deploy.
func (e *entity) admitCancel(req contract.GateRequest) error {
	if e.s.Waiting != nil || e.canStop() {
		return nil
	}
	if op := e.s.Current; e.busy && op != nil && op.Cancel != nil {
		return notAllowed("%s: %s %s is already being stopped (%s)", e.s.Ref, op.Kind, op.ID, op.Cancel)
	}
	if e.busy {
		return notAllowed("%s: %s; only a running provision or deploy can be cancelled", e.s.Ref, e.runningLine())
	}
	return notAllowed("%s: nothing is running (the instance is %s); cancel stops a running provision or deploy, or one waiting at its scheduling gates",
		e.s.Ref, e.s.State)
}

// stopRunning cancels the running pipeline: its activity is cancelled (terraform gets SIGINT and
// saves its state, an ArgoCD sync is terminated) and its compensation records where it stopped.
func (e *entity) stopRunning(ctx workflow.Context, actor, reason string, teardown lifecycle.Operation) bool {
	if !cancelsRunning(ctx) {
		return false
	}
	if a, ok := verifiedActor(ctx); ok {
		actor = a.String()
	}
	op := e.s.Current
	op.Cancel = &contract.CancelRecord{Actor: actor, Reason: reason, For: teardown, At: workflow.Now(ctx)}
	workflow.GetLogger(ctx).Info("stopping the running operation", "instance", e.s.Ref.String(), "operation", op.ID,
		"step", op.Step, "by", actor, "for", string(teardown))
	e.stop()
	return true
}

// stopped applies the outcome of a pipeline that was stopped: back to where it was when it had
// changed nothing, else <Op>Failed with the leftovers of where it stopped. It reports whether it did.
func (e *entity) stopped(ctx workflow.Context, op *contract.Operation, pf contract.PipelineFailure) bool {
	if op.Cancel == nil || pf.Failure.Type != contract.ErrCancelled {
		return false
	}
	f := pf.Failure
	f.Error = fmt.Sprintf("%s of %s %s at step %s", op.Kind, e.s.Ref, op.Cancel, f.Step)
	op.Failure, op.Progress, op.Step = &f, pf.Progress, f.Step
	op.Steps = mergeSteps(op.Steps, op.Attempt, pf.Steps)
	if len(f.Leftovers) == 0 {
		op.Result = contract.ResultCancelled
		f.Error += "; nothing was changed"
		e.setState(ctx, op.From)
		e.tellRollout(ctx, op)
		return true
	}
	op.Result = contract.ResultFailed
	e.setState(ctx, op.Kind.Failed(op.From))
	if op.Cancel.For == "" { // a teardown follows at once: nothing waits for an operator
		e.notify(ctx, notify.KindFailed, f.Error, func(ev *notify.Event) { ev.Step = f.Step })
	}
	e.tellRollout(ctx, op)
	return true
}

// preTerminate stops the running provision or deploy for teardown and waits until it has ended;
// the instance shows PreTerminate meanwhile (EMCO's terminate while instantiating).
func (e *entity) preTerminate(ctx workflow.Context, kind lifecycle.Operation, req contract.OperationRequest) error {
	if !e.stopRunning(ctx, req.Actor, req.Reason, kind) {
		return busyError(fmt.Sprintf("%s is busy: %s; %s is rejected", e.s.Ref, e.runningLine(), kind))
	}
	e.setState(ctx, lifecycle.PreTerminate)
	if err := workflow.Await(ctx, func() bool { return !e.busy }); err != nil {
		return err
	}
	if kind == lifecycle.OpArchive && e.s.State == lifecycle.DeploymentFailed {
		return nil // archive removes the app whatever the stopped deploy left; it keeps the infrastructure
	}
	if err := lifecycle.Check(e.s.State, kind); err != nil {
		return notAllowed("%s: the running operation stopped and the instance is %s, where %s has nothing to tear down: %s",
			e.s.Ref, e.s.State, kind, err)
	}
	return nil
}
