package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/steps"
)

// Heartbeats let a dead worker be noticed within a minute, even mid-apply.
const heartbeatTimeout = 30 * time.Second

// transientAttempts bounds retries of errors not known to be permanent (a network blip,
// lock contention); permanent ones are typed non-retryable and fail at once.
const transientAttempts = 10

func retryPolicy(attempts int32) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval:        time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        30 * time.Second,
		MaximumAttempts:        attempts,
		NonRetryableErrorTypes: steps.NonRetryable,
	}
}

// shortCtx is for quick, idempotent calls: git, validation, rendering.
func shortCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy:         retryPolicy(transientAttempts),
	})
}

// terraformCtx is for terraform commands: long, heartbeating, few retries.
func terraformCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy:         retryPolicy(transientAttempts),
	})
}

// deployCtx waits for the app until deadline; the deadline is in the input, so it survives restarts.
func deployCtx(ctx workflow.Context, timeout time.Duration) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: timeout + time.Minute,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy:         retryPolicy(transientAttempts),
	})
}

func (s Settings) deployTimeout() time.Duration {
	if s.DeployTimeout > 0 {
		return s.DeployTimeout
	}
	return defaultDeployTimeout
}
