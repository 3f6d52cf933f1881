package client

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/observe"
)

// observerQueryTimeout bounds the question to the observer; with no worker it would wait long.
const observerQueryTimeout = 5 * time.Second

// Observer asks an observer workflow about its sweeps.
func (c *Client) Observer(ctx context.Context, id string) (*contract.ObserverState, error) {
	ctx, cancel := context.WithTimeout(ctx, observerQueryTimeout)
	defer cancel()
	v, err := c.Temporal.QueryWorkflow(ctx, id, "", contract.QueryObserver)
	if err != nil {
		return nil, fmt.Errorf("observer %s: %w", id, err)
	}
	var st contract.ObserverState
	if err := v.Get(&st); err != nil {
		return nil, fmt.Errorf("decode the state of observer %s: %w", id, err)
	}
	return &st, nil
}

// Refresh asks the instance to observe its app now (a read-only activity) and returns the status
// it answers with, whose Refresh says what was seen.
func (c *Client) Refresh(ctx context.Context, ref contract.Ref) (*contract.Status, error) {
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: contract.UpdateRefresh,
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, translate(ref.String(), err)
	}
	var st contract.Status
	if err := h.Get(ctx, &st); err != nil {
		return nil, translate(ref.String(), err)
	}
	return &st, nil
}

// freshen folds the observer's last sweep into the status: Running and Ready as of the last
// time anyone looked, and Unknown (Stale) when nobody has for too long.
func (c *Client) freshen(ctx context.Context, st *contract.Status) {
	o := st.Observed
	if o == nil || o.Observer == "" || !observe.Observed(st.State) {
		return
	}
	sweep := observe.Sweep{Interval: o.Interval}
	if obs, err := c.Observer(ctx, o.Observer); err != nil {
		st.ObserverError = err.Error()
	} else {
		sweep.Last, sweep.Interval = obs.LastSweep, obs.Interval
	}
	st.Conditions, st.ObservedAt = observe.Freshen(st.Conditions, o.At, sweep, time.Now())
}
