package e2e

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/workflows"
)

// An observer whose pool has no worker left (a torn-down pool, here a queue nobody polls) never
// answers its query; the fleet counts must still come back, or every gauge goes stale with it.
func TestFleetCountsStandWhenAnObserverDoesNotAnswer(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := "observer-without-worker-" + t.Name()
	_, err := e.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: id, TaskQueue: "nobody-polls-" + e.TaskQueue},
		contract.ObserverWorkflowName, workflows.ObserverInput{Interval: time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Client.Temporal.TerminateWorkflow(context.Background(), id, "", "test over") })
	// Visibility lists it as running before the fleet is counted.
	require.Eventually(t, func() bool {
		n, err := e.Client.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: e.Client.Namespace,
			Query: "WorkflowId = '" + id + "' AND ExecutionStatus = 'Running'"})
		return err == nil && n.GetCount() == 1
	}, 30*time.Second, 200*time.Millisecond)

	f, err := e.Client.Fleet(ctx)
	require.NoError(t, err, "an observer that does not answer must not fail the counts")
	require.NotEmpty(t, f.States, "the counts by state are there")
}
