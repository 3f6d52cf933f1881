package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/contract"
)

// DeliveryEvent is one recorded webhook delivery and what became of its commands.
type DeliveryEvent struct {
	Workflow string                     `json:"workflow"`
	Status   string                     `json:"status"` // running, completed, failed, terminated, ...
	Started  time.Time                  `json:"started"`
	Closed   *time.Time                 `json:"closed,omitempty"`
	Outcomes []contract.DeliveryOutcome `json:"outcomes,omitempty"`
}

// Events returns the newest recorded deliveries, at most limit, newest first.
func (c *Client) Events(ctx context.Context, limit int) ([]DeliveryEvent, error) {
	var out []DeliveryEvent
	var token []byte
	query := fmt.Sprintf("WorkflowType = '%s'", contract.DeliveryWorkflowName)
	for len(out) < limit {
		resp, err := c.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: c.Namespace, Query: query, NextPageToken: token, PageSize: int32(min(limit, 1000)),
		})
		if err != nil {
			return nil, err
		}
		for _, ex := range resp.Executions {
			if len(out) == limit {
				break
			}
			ev := DeliveryEvent{Workflow: ex.GetExecution().GetWorkflowId(), Started: ex.GetStartTime().AsTime(),
				Status: strings.ToLower(strings.TrimPrefix(ex.GetStatus().String(), "WORKFLOW_EXECUTION_STATUS_"))}
			if ct := ex.GetCloseTime(); ct != nil {
				closed := ct.AsTime()
				ev.Closed = &closed
			}
			if ex.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
				var res contract.DeliveryResult
				run := c.Temporal.GetWorkflow(ctx, ev.Workflow, ex.GetExecution().GetRunId())
				if err := run.Get(ctx, &res); err != nil {
					return nil, fmt.Errorf("read %s: %w", ev.Workflow, err)
				}
				ev.Outcomes = res.Outcomes
			}
			out = append(out, ev)
		}
		token = resp.NextPageToken
		if len(token) == 0 {
			break
		}
	}
	return out, nil
}
