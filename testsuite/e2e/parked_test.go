package e2e

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// A parked instance in the worker's sticky cache holds its workflow's goroutine only: its main
// loop receives its signals (lean-parked-instance v2), where a coroutine of their own, and before
// that one per kind of signal, each kept a stack for as long as the instance stayed cached, which
// is most of what 10,000 parked instances cost (`make bench`).
func TestAParkedInstanceHoldsOneGoroutine(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.Deployer = "none" })
	const n = 200
	ctx := context.Background()
	before := runtime.NumGoroutine()
	now := time.Now().UTC()
	for i := range n {
		ref := contract.Ref{Tenant: "parked", Name: fmt.Sprintf("i%03d", i)}
		_, err := e.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
			ID: contract.InstanceWorkflowID(ref), TaskQueue: e.TaskQueue}, contract.InstanceWorkflowName,
			instant.Parked(ref, "observer/"+e.TaskQueue, now))
		require.NoError(t, err)
	}
	// Parked: past the first workflow task, which upserts AppObserved, so the worker caches them.
	require.Eventually(t, func() bool {
		resp, err := e.Client.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("TaskQueue = '%s' AND InstanceState = 'Deployed' AND AppObserved IS NOT NULL", e.TaskQueue)})
		return err == nil && resp.GetCount() == n
	}, 2*time.Minute, 250*time.Millisecond, "instances parked")
	for _, i := range []int{0, n - 1} { // each answers from the worker's cache
		v, err := e.Client.Temporal.QueryWorkflow(ctx, contract.InstanceWorkflowID(contract.Ref{Tenant: "parked", Name: fmt.Sprintf("i%03d", i)}),
			"", contract.QueryStatus, contract.StatusRequest{})
		require.NoError(t, err)
		var st contract.Status
		require.NoError(t, v.Get(&st))
		require.Equal(t, "Deployed", string(st.State))
	}
	grown := runtime.NumGoroutine() - before
	// Six per instance before the receivers shared one coroutine, two before the main loop
	// received the signals; below two per instance leaves room for the worker's own pollers.
	require.Less(t, grown, 2*n, "%d goroutines for %d parked instances", grown, n)
	// Evicted instances hold none: well over half of n says they are cached (goroutines the
	// harness had before may have ended meanwhile, so not n exactly).
	require.Greater(t, grown, n/2, "the instances are cached, each with its goroutine: %d for %d", grown, n)
}
