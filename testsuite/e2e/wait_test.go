package e2e

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// countingClient counts the status queries a waiting client sends.
type countingClient struct {
	sdkclient.Client
	queries atomic.Int64
}

func (c *countingClient) QueryWorkflow(ctx context.Context, id, run, query string, args ...any) (converter.EncodedValue, error) {
	c.queries.Add(1)
	return c.Client.QueryWorkflow(ctx, id, run, query, args...)
}

// --wait shows each step as it starts and ends, and costs a query per step, not one per tick:
// a deploy that sits in one step for 6 s is followed with a handful of queries (a 200 ms poll
// would send 30).
func TestWaitFollowsStepsWithoutPolling(t *testing.T) {
	e, _ := instantEnv(t, slowDeploys(6*time.Second))

	ctx := context.Background()
	ref := contract.Ref{Tenant: "wait", Name: "web"}
	h, err := e.Client.Submit(ctx, ref, lifecycle.OpProvision, contract.OperationRequest{
		ConfigYAML: "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"}, "")
	require.NoError(t, err)
	_, err = h.Get(ctx)
	require.NoError(t, err)

	counting := &countingClient{Client: e.Client.Temporal}
	c := client.New(counting, e.TaskQueue, "")
	h, err = c.Submit(ctx, ref, lifecycle.OpDeploy, contract.OperationRequest{}, "")
	require.NoError(t, err)
	seen := map[string]bool{}
	res, err := c.Wait(ctx, h, func(st *contract.Status) {
		if st.Operation != nil {
			for _, s := range st.Operation.Steps {
				seen[s.Name+" "+s.Status] = true
			}
		}
	})
	require.NoError(t, err)
	require.Equal(t, contract.ResultSucceeded, res.Result)
	assert.True(t, seen[contract.DeployApp+" "+contract.StepRunning], "the slow step was shown while it ran: %v", seen)
	assert.True(t, seen[contract.DeployApp+" "+contract.StepDone], "and when it ended: %v", seen)
	assert.LessOrEqual(t, counting.queries.Load(), int64(12), "queries while waiting 6 s in one step")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "deferred-step-starts")
}
