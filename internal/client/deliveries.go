package client

import (
	"context"

	"github.com/google/uuid"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
)

// RecordDeliveries records a batch in one round trip that waits for no worker: one workflow
// start whose workflow files each delivery under its own ID, where a redelivery is found.
func (c *Client) RecordDeliveries(ctx context.Context, ds []contract.Delivery) error {
	_, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        "deliveries/" + uuid.NewString(),
		TaskQueue: c.TaskQueue,
	}, contract.DeliveryBatchWorkflowName, ds)
	return err
}
