package client

import (
	"context"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Watch follows the instance's running operation to its end, calling progress with the status
// at the start and after each step event (a long poll of the history, no polling loop). It
// returns the last status read: the operation that ended, or the status as it was when no
// operation was running.
func (c *Client) Watch(ctx context.Context, ref contract.Ref, progress func(*contract.Status)) (*contract.Status, error) {
	st, err := c.query(ctx, ref, contract.StatusRequest{})
	if err != nil {
		return nil, err
	}
	if !running(st) {
		return st, nil
	}
	c.withWaiting(ctx, st)
	op := st.Operation.ID
	followCtx, stop := context.WithCancel(ctx)
	defer stop()
	events := make(chan struct{}, 1)
	go c.followSteps(followCtx, ref, events)
	for {
		if progress != nil {
			progress(st)
		}
		followed := true
		if waiting(st) {
			// The queue moving records no event: a step waiting for a budget re-reads its place.
			select {
			case _, followed = <-events:
			case <-time.After(waitRefresh):
			}
		} else {
			_, followed = <-events
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if st, err = c.query(ctx, ref, contract.StatusRequest{}); err != nil {
			return nil, err
		}
		c.withRetrying(ctx, st)
		c.withWaiting(ctx, st)
		if !running(st) || st.Operation.ID != op {
			if progress != nil {
				progress(st)
			}
			return st, nil
		}
		if !followed {
			// The history read ended with the operation still running (a failed read): follow
			// again after a pause, so a broken connection never turns into a busy loop.
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			events = make(chan struct{}, 1)
			go c.followSteps(followCtx, ref, events)
		}
	}
}

// waitRefresh is how often watch re-reads the place of a step waiting for a capacity budget.
const waitRefresh = 2 * time.Second

func running(st *contract.Status) bool {
	return st.Operation != nil && st.Operation.Result == contract.ResultRunning
}
