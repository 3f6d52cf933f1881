package client

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Wait waits for h to end. With progress, it follows the instance's history by long poll and
// reads the status (with the running step's retries, withRetrying) only when a step event or a
// step's Retrying signal arrives, then once at the end: a waiting client costs a query and a
// describe per step, never one per tick, however long the operation runs.
func (c *Client) Wait(ctx context.Context, h *Handle, progress func(*contract.Status)) (contract.OperationResult, error) {
	if progress == nil {
		return h.Get(ctx)
	}
	followCtx, stop := context.WithCancel(ctx)
	defer stop()
	events := make(chan struct{}, 1)
	go c.followSteps(followCtx, h.Ref, events)
	done := make(chan struct{})
	var res contract.OperationResult
	var err error
	go func() {
		defer close(done)
		res, err = h.Get(ctx)
	}()
	show := func() {
		if st, qerr := c.query(ctx, h.Ref, contract.StatusRequest{}); qerr == nil {
			c.withRetrying(ctx, st)
			progress(st)
		}
	}
	for {
		select {
		case <-done:
			show()
			return res, err
		case _, ok := <-events:
			if !ok {
				events = nil // the run ended: the result arrives through done
				continue
			}
			show()
		}
	}
}

// followSteps long-polls the instance's current run and sends on steps (without blocking; a
// pending send already covers it) once it knows where the history stands, then for each step
// signal, pipeline start and end, state change and finished request after that. It closes
// steps when the run ends or ctx does.
func (c *Client) followSteps(ctx context.Context, ref contract.Ref, steps chan<- struct{}) {
	defer close(steps)
	id := contract.InstanceWorkflowID(ref)
	d, err := c.Temporal.DescribeWorkflowExecution(ctx, id, "")
	steps <- struct{}{}
	if err != nil {
		return
	}
	seen := d.GetWorkflowExecutionInfo().GetHistoryLength()
	it := c.Temporal.GetWorkflowHistory(ctx, id, d.GetWorkflowExecutionInfo().GetExecution().GetRunId(), true,
		enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return
		}
		if ev.GetEventId() <= seen {
			continue
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED,
			enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED, enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
			enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
			select {
			case steps <- struct{}{}:
			default:
			}
		}
	}
}
