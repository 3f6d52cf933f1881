package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// heartbeatEvery is well inside the 30 s heartbeat timeout the workflows set.
const heartbeatEvery = 5 * time.Second

// withHeartbeat runs fn while heartbeating, so a long terraform or deploy step
// proves it is alive and learns of cancellation (which cancels ctx).
func withHeartbeat(ctx context.Context, detail string, fn func(ctx context.Context) error) error {
	done := make(chan struct{})
	defer close(done)
	if activity.IsActivity(ctx) {
		go func() {
			t := time.NewTicker(heartbeatEvery)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-ctx.Done():
					return
				case <-t.C:
					activity.RecordHeartbeat(ctx, detail)
				}
			}
		}()
	}
	return fn(ctx)
}
