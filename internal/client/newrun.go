package client

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
)

// NewRun has an idle instance continue as new now, so that its next run starts on the workers'
// current code: the step that moves parked instances off a workflow version's old branch
// (docs/versions.md). A busy instance refuses (RejectedError with Busy).
func (c *Client) NewRun(ctx context.Context, ref contract.Ref, requestID string) (contract.NewRunResult, error) {
	var out contract.NewRunResult
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: contract.UpdateNewRun, UpdateID: requestID,
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return out, translate(ref.String(), err)
	}
	return out, translate(ref.String(), h.Get(ctx, &out))
}
