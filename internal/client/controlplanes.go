package client

import (
	"context"
	"fmt"
	"sort"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
)

// ControlPlanes lists the worker pools whose registry workflow runs, sorted by name. Each
// record is asked for, not read from a memo: payloads are sealed by the codec.
func (c *Client) ControlPlanes(ctx context.Context) ([]controlplane.Pool, error) {
	q := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", contract.ControlPlaneWorkflowName)
	var out []controlplane.Pool
	var token []byte
	for {
		resp, err := c.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: c.Namespace, Query: q, NextPageToken: token})
		if err != nil {
			return nil, fmt.Errorf("list control planes: %w", err)
		}
		for _, ex := range resp.Executions {
			id := ex.GetExecution().GetWorkflowId()
			v, err := c.Temporal.QueryWorkflow(ctx, id, "", contract.QueryPool)
			if err != nil {
				return nil, fmt.Errorf("read control plane %s: %w", id, err)
			}
			var pool controlplane.Pool
			if err := v.Get(&pool); err != nil {
				return nil, fmt.Errorf("read control plane %s: %w", id, err)
			}
			out = append(out, pool)
		}
		if token = resp.NextPageToken; len(token) == 0 {
			sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
			return out, nil
		}
	}
}
