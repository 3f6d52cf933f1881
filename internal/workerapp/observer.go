package workerapp

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/workflows"
)

// StartObserver makes sure the observer of this worker's deployer connection runs, and tells
// it the interval. Every worker calls it at start: the first starts the one observer, the
// others reach the same workflow ID. A deployer that cannot list its apps (none) has none.
func StartObserver(ctx context.Context, c client.Client, taskQueue string, acts *activities.Activities, interval time.Duration) (string, error) {
	l, ok := acts.Deployer.(deploy.Lister)
	if !ok {
		return "", nil
	}
	if interval <= 0 {
		interval = DefaultObserveInterval
	}
	id := contract.ObserverWorkflowID(taskQueue, l.Connection())
	_, err := c.SignalWithStartWorkflow(ctx, id, contract.SignalObserverConfig, contract.ObserverConfig{Interval: interval},
		client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE},
		contract.ObserverWorkflowName, workflows.ObserverInput{Interval: interval})
	if err != nil {
		return "", fmt.Errorf("start the deployer observer %s: %w", id, err)
	}
	return id, nil
}
