package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// BudgetMargin is what a budgeted terraform step gets past its budget: the activity interrupts
// terraform when the budget runs out, and terraform needs the worker's stop grace
// (SLIPWAY_TERRAFORM_STOP_GRACE, 30s by default; the worker refuses one too long for this).
const BudgetMargin = 2 * time.Minute

// budgeted reports whether this pipeline gives terraform steps the stack's budgets. It is asked
// only of stacks that set schema.timeouts, so other pipelines' histories are as before.
func (p *pipeline) budgeted(ctx workflow.Context) bool {
	if p.progress.Controls == nil || p.progress.Controls.Budgets == nil {
		return false
	}
	if p.budgets == nil {
		on := rides(ctx) || workflow.GetVersion(ctx, changeStackBudgets, workflow.DefaultVersion, 1) >= 1
		p.budgets = &on
	}
	return *p.budgets
}

// tfCtx is the context of terraform step op (plan, apply or destroy) and the budget to hand the
// activity: the stack's when it sets one, else terraformCtx's hour with no budget of its own.
func (p *pipeline) tfCtx(ctx workflow.Context, op string) (workflow.Context, *contract.Budget) {
	if !p.budgeted(ctx) {
		return terraformCtx(ctx), nil
	}
	b, ok := p.progress.Controls.Budgets.For(op)
	if !ok {
		return terraformCtx(ctx), nil
	}
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    b.Limit + BudgetMargin,
		HeartbeatTimeout:       heartbeatTimeout,
		ScheduleToCloseTimeout: b.Limit + BudgetMargin + transientBudget,
		RetryPolicy:            retryPolicy(),
		WaitForCancellation:    true, // a cancelled step ends (terraform saves its state) before compensation runs
	}), &b
}

// budgetLeftover names the budget a terraform step ran out of, and what to do about it.
func (p *pipeline) budgetLeftover(err error) (contract.Leftover, bool) {
	if errorType(err) != contract.ErrBudget {
		return contract.Leftover{}, false
	}
	var b contract.Budget
	if !budgetOf(err, &b) {
		return contract.Leftover{}, false
	}
	return contract.Leftover{Kind: contract.LeftoverBudget, ID: b.Field,
		Detail: b.RanOut() + ": terraform was interrupted; what it finished is in the state, the rest was not done",
		Cleanup: "raise " + b.Field + " in the stack's schema.yaml (or make the change smaller), then slipway retry " +
			p.in.Ref.String()}, true
}

// budgetOf reads the budget a BudgetExceeded error carries.
func budgetOf(err error, b *contract.Budget) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && appErr.HasDetails() && appErr.Details(b) == nil
}
