package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
)

// heartbeatEvery is well inside the 30 s heartbeat timeout the workflows set.
const heartbeatEvery = 5 * time.Second

// withHeartbeat runs fn while heartbeating, so a long terraform or deploy step
// proves it is alive and learns of cancellation (which cancels ctx).
func withHeartbeat(ctx context.Context, detail string, fn func(ctx context.Context) error) error {
	done := make(chan struct{})
	defer close(done)
	if activity.IsActivity(ctx) {
		hb := heartbeatCtx(ctx)
		go func() {
			t := time.NewTicker(heartbeatEvery)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-hb.Done():
					if !temporal.IsCanceledError(context.Cause(hb)) {
						return
					}
					// A cancel the workflow asked for (slipway cancel) waits for terraform to save its
					// state, up to the stop grace: keep proving the step alive until fn returns.
					hb = context.WithoutCancel(hb)
				case <-t.C:
					activity.RecordHeartbeat(hb, detail)
				}
			}
		}()
	}
	return stopped(ctx, fn(ctx))
}

// stopped turns the failure of a step its worker's stop cut short (the grace ran out,
// terraform got SIGINT and saved its state) into a retryable error: the step is not failed,
// it runs again on another worker, where an apply re-plans what is left (StalePlan).
func stopped(ctx context.Context, err error) error {
	// A cancel the workflow asked for stays a cancel.
	if err == nil || ctx.Err() == nil || !activity.IsActivity(ctx) || temporal.IsCanceledError(context.Cause(ctx)) {
		return err
	}
	select {
	case <-activity.GetWorkerStopChannel(ctx):
		return temporal.NewApplicationError("interrupted because the worker is stopping: "+err.Error(), contract.ErrWorkerStopped)
	default:
		return err
	}
}
