package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// budgets are the stack's terraform budgets for the workflow; nil when it keeps the defaults,
// so a pipeline of such a stack runs exactly as before budgets existed.
func budgets(t config.Timeouts) *contract.Budgets {
	if t.IsZero() {
		return nil
	}
	return &contract.Budgets{Plan: t.Plan, Apply: t.Apply, Destroy: t.Destroy}
}

// budgetError is the cause of a context whose budget ran out.
type budgetError struct{ b contract.Budget }

func (e *budgetError) Error() string { return e.b.RanOut() }

// withBudget ends ctx when the step's budget, counted from this attempt's start, runs out:
// the runner then interrupts terraform (SIGINT, state saved, lock released) well before the
// workflow's start-to-close timeout, which leaves room for that.
func withBudget(ctx context.Context, b *contract.Budget) (context.Context, context.CancelFunc) {
	if b == nil || b.Limit <= 0 {
		return ctx, func() {}
	}
	start := time.Now()
	if activity.IsActivity(ctx) {
		start = activity.GetInfo(ctx).StartedTime
	}
	bctx, cancel := context.WithDeadlineCause(ctx, start.Add(b.Limit), &budgetError{b: *b})
	return context.WithValue(bctx, unbudgetedKey{}, ctx), cancel
}

// unbudgetedKey holds, in a budgeted context, the activity's own context.
type unbudgetedKey struct{}

// heartbeatCtx is the context to heartbeat on: the activity's own, not its budget, so that the
// step keeps heartbeating while the terraform its budget interrupted saves state and exits
// (up to the stop grace), and Temporal does not start it again beside that terraform.
func heartbeatCtx(ctx context.Context) context.Context {
	if outer, ok := ctx.Value(unbudgetedKey{}).(context.Context); ok {
		return outer
	}
	return ctx
}

// overBudget turns the failure of a step whose budget ran out into a non-retryable
// BudgetExceeded naming the budget; other failures pass through.
func overBudget(ctx context.Context, err error) error {
	var be *budgetError
	if err == nil || !errors.As(context.Cause(ctx), &be) {
		return err
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == contract.ErrWorkerStopped {
		return err // the worker's stop came first: another worker runs the step again
	}
	return temporal.NewNonRetryableApplicationError(be.b.RanOut()+"; terraform was interrupted and saved its state",
		contract.ErrBudget, nil, be.b)
}
