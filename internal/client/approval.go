package client

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Approval sends approve or reject to the instance; requestID keys it, so a resent request
// (a webhook redelivery) is taken once. An empty requestID makes a new one.
func (c *Client) Approval(ctx context.Context, ref contract.Ref, verb string, req contract.ApprovalRequest, requestID string) (contract.ApprovalResult, error) {
	if requestID == "" {
		requestID = uuid.NewString()
	}
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: verb, UpdateID: requestID,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return contract.ApprovalResult{}, translate(ref.String(), err)
	}
	var out contract.ApprovalResult
	return out, translate(ref.String(), h.Get(ctx, &out))
}
