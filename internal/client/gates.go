package client

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/workflows"
)

// Gate sends gate-add, gate-remove or cancel to the instance and returns its gates after it.
func (c *Client) Gate(ctx context.Context, ref contract.Ref, update string, req workflows.GateRequest) ([]workflows.Gate, error) {
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: workflows.InstanceWorkflowID(ref), UpdateName: update, UpdateID: uuid.NewString(),
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, translate(ref.String(), err)
	}
	var out []workflows.Gate
	return out, translate(ref.String(), h.Get(ctx, &out))
}
