package client

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/metrics"
	"github.com/slipway-dev/slipway/workflows"
)

// readyValues are InstanceReady's values.
var readyValues = []string{"True", "False", "Unknown"}

// Fleet counts instances by state and Ready and the approvals waiting, with the same
// visibility queries as `slipway list` (one count each, so its cost does not grow with the
// fleet), and reads the deployer observers' last sweep (the oldest, when there are several).
func (c *Client) Fleet(ctx context.Context) (metrics.FleetCounts, error) {
	f := metrics.FleetCounts{At: time.Now(), States: map[string]int64{}, Ready: map[string]int64{}}
	for _, s := range lifecycle.AllStates {
		n, err := c.count(ctx, ListFilter{State: string(s)}.Query())
		if err != nil {
			return f, err
		}
		f.States[string(s)] = n
	}
	for _, r := range readyValues {
		n, err := c.count(ctx, ListFilter{Ready: r}.Query())
		if err != nil {
			return f, err
		}
		f.Ready[r] = n
	}
	n, err := c.count(ctx, ListFilter{AwaitingApproval: true}.Query())
	if err != nil {
		return f, err
	}
	f.ApprovalsWaiting = n
	f.LastSweep, err = c.lastSweep(ctx)
	return f, err
}

func (c *Client) count(ctx context.Context, query string) (int64, error) {
	resp, err := c.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: c.Namespace, Query: query})
	if err != nil {
		return 0, fmt.Errorf("count %q: %w", query, err)
	}
	return resp.GetCount(), nil
}

// lastSweep asks each running deployer observer for its state; zero when none has swept.
func (c *Client) lastSweep(ctx context.Context) (time.Time, error) {
	resp, err := c.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: c.Namespace,
		Query: fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", workflows.ObserverWorkflowName)})
	if err != nil {
		return time.Time{}, err
	}
	var oldest time.Time
	for _, ex := range resp.Executions {
		v, err := c.Temporal.QueryWorkflow(ctx, ex.GetExecution().GetWorkflowId(), "", workflows.QueryObserver)
		if err != nil {
			return time.Time{}, fmt.Errorf("query observer %s: %w", ex.GetExecution().GetWorkflowId(), err)
		}
		var st workflows.ObserverState
		if err := v.Get(&st); err != nil {
			return time.Time{}, err
		}
		if !st.LastSweep.IsZero() && (oldest.IsZero() || st.LastSweep.Before(oldest)) {
			oldest = st.LastSweep
		}
	}
	return oldest, nil
}
