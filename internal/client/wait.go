package client

import (
	"context"
	"time"

	"github.com/slipway-dev/slipway/workflows"
)

// Wait waits for h to end, calling progress with the instance's status every
// poll interval so a caller can show live steps.
func (c *Client) Wait(ctx context.Context, h *Handle, poll time.Duration, progress func(*workflows.Status)) (workflows.OperationResult, error) {
	type outcome struct {
		res workflows.OperationResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := h.Get(ctx)
		done <- outcome{res, err}
	}()
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case o := <-done:
			if progress != nil {
				if st, err := c.query(ctx, h.Ref, workflows.StatusRequest{}); err == nil {
					progress(st)
				}
			}
			return o.res, o.err
		case <-t.C:
			if progress == nil {
				continue
			}
			if st, err := c.query(ctx, h.Ref, workflows.StatusRequest{}); err == nil {
				progress(st)
			}
		}
	}
}
