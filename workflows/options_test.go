package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Every kind of activity a worker runs must reveal a dead worker within a minute: through
// heartbeats, or by a start-to-close timeout well under a minute.
func TestEveryActivityNoticesADeadWorkerWithinAMinute(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) (map[string]workflow.ActivityOptions, error) {
		return map[string]workflow.ActivityOptions{
			"short":     workflow.GetActivityOptions(shortCtx(ctx)),
			"inspect":   workflow.GetActivityOptions(inspectCtx(ctx)),
			"terraform": workflow.GetActivityOptions(terraformCtx(ctx)),
			"deploy":    workflow.GetActivityOptions(deployCtx(ctx, time.Hour)),
		}, nil
	}, workflow.RegisterOptions{Name: "options"})
	env.ExecuteWorkflow("options")
	require.NoError(t, env.GetWorkflowError())
	var got map[string]workflow.ActivityOptions
	require.NoError(t, env.GetWorkflowResult(&got))
	require.Len(t, got, 4)
	for name, o := range got {
		noticed := o.StartToCloseTimeout
		if o.HeartbeatTimeout > 0 {
			noticed = o.HeartbeatTimeout
		}
		require.Positive(t, noticed, name)
		require.LessOrEqual(t, noticed, 30*time.Second, "%s: a dead worker goes unnoticed for %v", name, noticed)
		// Transient errors retry within a time budget; a stuck lock never loops.
		require.Greater(t, o.ScheduleToCloseTimeout, o.StartToCloseTimeout, name)
		require.Contains(t, o.RetryPolicy.NonRetryableErrorTypes, contract.ErrStateLocked, name)
		require.NotContains(t, o.RetryPolicy.NonRetryableErrorTypes, contract.ErrLockContention, name)
	}
}
