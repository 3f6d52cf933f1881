package client

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Gate sends gate-add, gate-remove or cancel to the instance and returns its gates after it.
func (c *Client) Gate(ctx context.Context, ref contract.Ref, update string, req contract.GateRequest) ([]contract.Gate, error) {
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: update, UpdateID: uuid.NewString(),
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, translate(ref.String(), err)
	}
	var out []contract.Gate
	return out, translate(ref.String(), h.Get(ctx, &out))
}
