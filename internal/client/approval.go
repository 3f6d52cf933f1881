package client

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/workflows"
)

// Approval sends approve or reject to the instance; requestID keys it, so a resent request
// (a webhook redelivery) is taken once. An empty requestID makes a new one.
func (c *Client) Approval(ctx context.Context, ref contract.Ref, verb string, req workflows.ApprovalRequest, requestID string) (workflows.ApprovalResult, error) {
	if requestID == "" {
		requestID = uuid.NewString()
	}
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflows.InstanceWorkflowID(ref), UpdateName: verb, UpdateID: requestID,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return workflows.ApprovalResult{}, translate(ref.String(), err)
	}
	var out workflows.ApprovalResult
	return out, translate(ref.String(), h.Get(ctx, &out))
}
