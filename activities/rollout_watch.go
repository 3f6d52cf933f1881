package activities

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// WatchWave waits until every instance of a rollout's wave is Ready, then reads their Ready every
// Poll for the watch time: the first that is not Ready in time, or turns un-Ready, ends the watch
// unhealthy, named with its condition's reason. It changes nothing.
func (a *Activities) WatchWave(ctx context.Context, in contract.WatchWaveInput) (contract.WatchWaveOutput, error) {
	if a.Instances == nil {
		return contract.WatchWaveOutput{}, notAllowedf("this worker has no Temporal client to reach instances")
	}
	poll := max(in.Poll, 10*time.Millisecond)
	readyBy := time.Now().Add(in.ReadyWait)
	pending := append([]contract.Ref(nil), in.Refs...)
	for len(pending) > 0 {
		var still []contract.Ref
		var last lifecycle.Condition
		for _, ref := range pending {
			c, err := a.Instances.Ready(ctx, ref)
			if err != nil {
				return contract.WatchWaveOutput{}, err
			}
			if c.Status != lifecycle.ConditionTrue {
				still, last = append(still, ref), c
			}
		}
		if pending = still; len(pending) == 0 {
			break
		}
		if time.Now().After(readyBy) {
			return contract.WatchWaveOutput{Ref: pending[0], Reason: fmt.Sprintf("not Ready after %s: %s", in.ReadyWait, conditionText(last))}, nil
		}
		if err := pause(ctx, poll, len(pending)); err != nil {
			return contract.WatchWaveOutput{}, err
		}
	}
	for end := time.Now().Add(in.Watch); ; {
		for _, ref := range in.Refs {
			c, err := a.Instances.Ready(ctx, ref)
			if err != nil {
				return contract.WatchWaveOutput{}, err
			}
			if c.Status != lifecycle.ConditionTrue {
				return contract.WatchWaveOutput{Ref: ref, Reason: "went un-Ready during the watch: " + conditionText(c)}, nil
			}
		}
		if !time.Now().Before(end) {
			return contract.WatchWaveOutput{Healthy: true}, nil
		}
		if err := pause(ctx, min(poll, time.Until(end)), 0); err != nil {
			return contract.WatchWaveOutput{}, err
		}
	}
}

// pause waits d, heartbeating, or returns when the activity is cancelled (an abort).
func pause(ctx context.Context, d time.Duration, detail any) error {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, detail)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func conditionText(c lifecycle.Condition) string {
	s := "Ready=" + string(c.Status)
	if c.Reason != "" {
		s += " (" + c.Reason
		if c.Message != "" {
			s += ": " + c.Message
		}
		s += ")"
	}
	return s
}
