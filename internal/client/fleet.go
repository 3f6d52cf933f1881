package client

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/metrics"
)

// readyValues are InstanceReady's values.
var readyValues = []string{"True", "False", "Unknown"}

// Fleet counts instances by state and Ready, the approvals waiting and the steps Retrying, with the same
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
	if f.StepsRetrying, err = c.count(ctx, ListFilter{Retrying: true}.Query()); err != nil {
		return f, err
	}
	if f.Releases, err = c.releaseCounts(ctx); err != nil {
		return f, err
	}
	// The counts stand even when an observer does not answer: its age is then just unknown.
	f.LastSweep = c.lastSweep(ctx)
	return f, nil
}

// releaseCounts counts running instances per stack, release and Ready. Visibility cannot group by
// a custom attribute, so this one lists the running instances (a page per 1,000 of them).
func (c *Client) releaseCounts(ctx context.Context) (map[metrics.ReleaseKey]int64, error) {
	items, err := c.List(ctx, ListFilter{})
	if err != nil {
		return nil, err
	}
	out := map[metrics.ReleaseKey]int64{}
	for _, it := range items {
		if it.Stack == "" {
			continue
		}
		k := metrics.ReleaseKey{Stack: it.Stack, Release: "head", Ready: cmp.Or(it.Ready, "Unknown")}
		if _, v, ok := strings.Cut(it.Release, "@"); ok {
			k.Release = v
		}
		out[k]++
	}
	return out, nil
}

func (c *Client) count(ctx context.Context, query string) (int64, error) {
	resp, err := c.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: c.Namespace, Query: query})
	if err != nil {
		return 0, fmt.Errorf("count %q: %w", query, err)
	}
	return resp.GetCount(), nil
}

// lastSweep asks each running deployer observer for its state and returns the oldest sweep;
// zero when none has swept. An observer that does not answer in time (its pool's workers are
// gone, or busy) is left out rather than holding up every other gauge.
func (c *Client) lastSweep(ctx context.Context) time.Time {
	resp, err := c.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: c.Namespace,
		Query: fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", contract.ObserverWorkflowName)})
	if err != nil {
		return time.Time{}
	}
	// Asked at once, so observers that do not answer cost one timeout, not one each.
	sweeps := make([]time.Time, len(resp.Executions))
	var wg sync.WaitGroup
	for i, ex := range resp.Executions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if st, err := c.Observer(ctx, ex.GetExecution().GetWorkflowId()); err == nil { // bounded: observerQueryTimeout
				sweeps[i] = st.LastSweep
			}
		}()
	}
	wg.Wait()
	var oldest time.Time
	for _, t := range sweeps {
		if !t.IsZero() && (oldest.IsZero() || t.Before(oldest)) {
			oldest = t
		}
	}
	return oldest
}
