package client

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
)

// StackSchemas are the stacks on main, and those only in the stacks repository that have
// releases (stack: only that one, none when there is no such stack) with their schema.yaml, read by a worker through the validate workflow: the server holds no
// clone of the GitOps repository.
func (c *Client) StackSchemas(ctx context.Context, stack string) ([]contract.StackSchema, error) {
	var out contract.ValidateOutput
	run, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        "validate/stacks/" + uuid.NewString(),
		TaskQueue: c.TaskQueue,
	}, contract.ValidateWorkflowName, contract.ValidateInput{Stacks: true, Stack: stack})
	if err != nil {
		return nil, err
	}
	err = translate("stacks/"+stack, run.Get(ctx, &out))
	return out.StackSchemas, err
}
