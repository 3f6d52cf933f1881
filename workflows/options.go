package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

const (
	// heartbeatTimeout lets a dead worker be noticed within a minute, even mid-apply.
	heartbeatTimeout = 30 * time.Second
	// shortTimeout bounds quick calls; without heartbeats it is also how long a dead worker
	// goes unnoticed, so it stays well under a minute.
	shortTimeout = 30 * time.Second
	// transientBudget is how long errors not known to be permanent (a network blip, lock
	// contention, a lost answer) are retried; permanent ones are typed non-retryable and
	// fail at once. A budget, not a count: one flaky call in a multi-call step compounds.
	transientBudget = 15 * time.Minute
)

func retryPolicy() *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:        time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        30 * time.Second,
		NonRetryableErrorTypes: contract.NonRetryable,
	}
}

// shortCtx is for quick, idempotent calls: git, validation, rendering.
func shortCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    shortTimeout,
		ScheduleToCloseTimeout: transientBudget,
		RetryPolicy:            retryPolicy(),
		WaitForCancellation:    true, // a cancelled step ends (terraform saves its state) before compensation runs
	})
}

// quick runs a short step: a local activity when local is set, which records one marker
// instead of a task round trip (three events and a workflow task), else a regular one. Only
// steps that read, or write idempotently, within seconds and need no heartbeat run locally.
func quick(ctx workflow.Context, local bool, activity string, args ...any) workflow.Future {
	if !local {
		return workflow.ExecuteActivity(shortCtx(ctx), activity, args...)
	}
	ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout:    shortTimeout,
		ScheduleToCloseTimeout: transientBudget,
		RetryPolicy:            retryPolicy(),
	})
	return workflow.ExecuteLocalActivity(ctx, activity, args...)
}

// inspectCtx is for compensation and force-unlock: they run terraform and PostgreSQL calls
// that may take longer than shortTimeout, so they heartbeat instead.
func inspectCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    5 * time.Minute,
		HeartbeatTimeout:       heartbeatTimeout,
		ScheduleToCloseTimeout: transientBudget,
		RetryPolicy:            retryPolicy(),
		WaitForCancellation:    true, // a cancelled step ends (terraform saves its state) before compensation runs
	})
}

// terraformCtx is for terraform commands: long and heartbeating.
func terraformCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    time.Hour,
		HeartbeatTimeout:       heartbeatTimeout,
		ScheduleToCloseTimeout: time.Hour + transientBudget,
		RetryPolicy:            retryPolicy(),
		WaitForCancellation:    true, // a cancelled step ends (terraform saves its state) before compensation runs
	})
}

// deployCtx waits for the app until deadline; the deadline is in the input, so it survives restarts.
func deployCtx(ctx workflow.Context, timeout time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    timeout + time.Minute,
		HeartbeatTimeout:       heartbeatTimeout,
		ScheduleToCloseTimeout: timeout + transientBudget,
		RetryPolicy:            retryPolicy(),
		WaitForCancellation:    true, // a cancelled step ends (terraform saves its state) before compensation runs
	})
}
