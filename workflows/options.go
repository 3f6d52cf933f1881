package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/steps"
)

// Heartbeats let a dead worker be noticed within a minute, even mid-apply.
const heartbeatTimeout = 30 * time.Second

func retryPolicy(attempts int32) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:        time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        30 * time.Second,
		MaximumAttempts:        attempts,
		NonRetryableErrorTypes: steps.NonRetryable,
	}
}

// shortTimeout bounds quick calls; without heartbeats it is also how long a dead worker
// goes unnoticed, so it stays well under a minute.
const shortTimeout = 30 * time.Second

// shortCtx is for quick, idempotent calls: git, validation, rendering.
func shortCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: shortTimeout,
		RetryPolicy:         retryPolicy(10),
	})
}

// inspectCtx is for compensation and force-unlock: they run terraform and PostgreSQL calls
// that may take longer than shortTimeout, so they heartbeat instead.
func inspectCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy:         retryPolicy(3),
	})
}

// terraformCtx is for terraform commands: long, heartbeating, few retries.
func terraformCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy:         retryPolicy(3),
	})
}

// deployCtx waits for the app until deadline; the deadline is in the input, so it survives restarts.
func deployCtx(ctx workflow.Context, timeout time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout + time.Minute,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy:         retryPolicy(3),
	})
}

func (s Settings) deployTimeout() time.Duration {
	if s.DeployTimeout > 0 {
		return s.DeployTimeout
	}
	return defaultDeployTimeout
}
