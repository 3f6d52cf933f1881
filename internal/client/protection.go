package client

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Protect sends protect or unprotect to the instance and returns its protection after it (nil: none).
func (c *Client) Protect(ctx context.Context, ref contract.Ref, update string, req contract.ProtectRequest) (*contract.Protection, error) {
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: update, UpdateID: uuid.NewString(),
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, translate(ref.String(), err)
	}
	var out *contract.Protection
	return out, translate(ref.String(), h.Get(ctx, &out))
}

// Extend sends extend to the instance and returns its expiry after it.
func (c *Client) Extend(ctx context.Context, ref contract.Ref, req contract.ExtendRequest) (*contract.Expiry, error) {
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: contract.UpdateExtend, UpdateID: uuid.NewString(),
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, translate(ref.String(), err)
	}
	var out *contract.Expiry
	return out, translate(ref.String(), h.Get(ctx, &out))
}
