package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// A step that keeps failing is Retrying, not running: the worker signals the instance when a
// pipeline's activity starts attempt contract.RetryingAfter (internal/workerapp/retrying.go).
// Everything here happens only on that signal, so an operation whose steps succeed records no
// event more; the attempts in between are Temporal's pending activity, which status reads live.

// stepRetrying records the running step as Retrying: the condition, the InstanceRetrying search
// attribute and, once per operation and step, a notification. A signal about another operation
// or pipeline than the running one is stale and dropped.
func (e *entity) stepRetrying(ctx workflow.Context, r contract.StepRetry) {
	op := e.s.Current
	if op == nil || op.Result != contract.ResultRunning || op.ID != r.Operation || op.Pipeline != r.Pipeline || op.Step == "" {
		return
	}
	r.Step, r.Since = op.Step, stepSince(op)
	first := op.Retrying == nil || op.Retrying.Step != r.Step
	op.Retrying = &r
	e.showDetails(ctx)
	if !first {
		return // a retry now started the count again: the same step, already told
	}
	e.upsertRetrying(ctx, true)
	e.notify(ctx, notify.KindRetrying, fmt.Sprintf("%s of %s is Retrying step %s (attempt %d): %s",
		op.Kind, e.s.Ref, r.Step, r.Attempt, r.LastError), func(ev *notify.Event) { ev.Step = r.Step })
}

// stepSince is when the running step's first attempt started.
func stepSince(op *contract.Operation) (since time.Time) {
	for _, s := range op.Steps {
		if s.Name == op.Step && s.Status == contract.StepRunning {
			since = s.StartedAt
		}
	}
	return since
}

// retryingNow is the running operation's Retrying step, nil when its step moved on or it ended.
func (e *entity) retryingNow() *contract.StepRetry {
	op := e.s.Current
	if op == nil || op.Retrying == nil || op.Result != contract.ResultRunning || op.Retrying.Step != op.Step {
		return nil
	}
	return op.Retrying
}

// clearRetrying drops a Retrying that no longer holds (the step ended) and its search attribute.
func (e *entity) clearRetrying(ctx workflow.Context) {
	op := e.s.Current
	if op == nil || op.Retrying == nil || e.retryingNow() != nil {
		return
	}
	op.Retrying = nil
	e.upsertRetrying(ctx, false)
}

// upsertRetrying sets or unsets InstanceRetrying; only runs that receive the signal (lean) get here.
func (e *entity) upsertRetrying(ctx workflow.Context, on bool) {
	u := saUpdates{lean: true, cur: workflow.GetTypedSearchAttributes(ctx)}
	u.boolean(contract.SAInstanceRetrying, on)
	if len(u.updates) == 0 {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, u.updates...); err != nil {
		workflow.GetLogger(ctx).Warn("search attribute InstanceRetrying not upserted", "error", err)
	}
}

// retryingCondition is Retrying=True while the running step keeps failing.
func (e *entity) retryingCondition() *lifecycle.Condition {
	r := e.retryingNow()
	if r == nil {
		return nil
	}
	c := cond(contract.CondRetrying, lifecycle.ConditionTrue, "StepRetrying",
		fmt.Sprintf("step %s failed %d attempts in a row and is retried: %s", r.Step, r.Attempt-1, r.LastError))
	c.ObservedAt = r.LastFailure
	return &c
}

// retryNow is retry on a running operation whose step is Retrying: the step's activity is reset
// (tried at once, its attempts counted from 1 again), the decision recorded, and the answer is
// the operation's result once it ends, as a retry of a failed one answers.
func (e *entity) retryNow(ctx workflow.Context, r *contract.StepRetry, req contract.DecisionRequest) (contract.OperationResult, error) {
	op := e.s.Current
	rec := contract.DecisionRecord{Decision: lifecycle.DecisionRetry, OperationID: op.ID, Actor: req.Actor, Reason: req.Reason,
		From: e.s.State, To: e.s.State, At: workflow.Now(ctx), RetriedStep: r.Step}
	in := contract.RetryNowInput{Pipeline: op.Pipeline, ActivityID: r.ActivityID}
	if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActRetryNow, in).Get(ctx, nil); err != nil {
		rec.Error = errorMessage(err)
		e.s.Decisions = append(e.s.Decisions, rec)
		return contract.OperationResult{}, notAllowed("%s: step %s could not be retried now: %s", e.s.Ref, r.Step, rec.Error)
	}
	e.s.Decisions = append(e.s.Decisions, rec)
	id := op.ID
	if err := workflow.Await(ctx, func() bool { return e.s.Current != op || op.ID != id || op.Result != contract.ResultRunning }); err != nil {
		return contract.OperationResult{}, err
	}
	return e.result(op), nil
}
