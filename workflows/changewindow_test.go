package workflows

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/windows"
)

type windowRun struct {
	Waited time.Duration
	Err    string
	Mid    contract.Status
}

// runWindowWait holds a deploy outside its window (opening 36 h on) in the time-skipping test
// environment; cancelAfter > 0 cancels it then, as slipway cancel does.
func runWindowWait(t *testing.T, next time.Duration, cancelAfter time.Duration) windowRun {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) (windowRun, error) {
		var out windowRun
		e := &entity{s: &contract.InstanceState{Ref: contract.Ref{Tenant: "acme", Name: "web"}, State: lifecycle.Deployed}, busy: true}
		st := &windows.Status{Inside: []string{"freeze"}}
		if next > 0 {
			st.Next = workflow.Now(ctx).Add(next)
		}
		workflow.Go(ctx, func(ctx workflow.Context) {
			_ = workflow.Sleep(ctx, time.Hour)
			out.Mid, _ = e.status(contract.StatusRequest{})
			if cancelAfter > 0 {
				_ = workflow.Sleep(ctx, cancelAfter-time.Hour)
				e.cancelled = true
			}
		})
		start := workflow.Now(ctx)
		err := e.awaitWindow(ctx, lifecycle.OpDeploy, contract.OperationRequest{Actor: "alice"}, st)
		out.Waited = workflow.Now(ctx).Sub(start)
		if err != nil {
			out.Err = err.Error()
			if errors.Is(err, errGateCancelled) {
				out.Err = "cancelled"
			}
		}
		return out, nil
	}, workflow.RegisterOptions{Name: "window-test"})
	env.ExecuteWorkflow("window-test")
	require.NoError(t, env.GetWorkflowError())
	var out windowRun
	require.NoError(t, env.GetWorkflowResult(&out))
	return out
}

// A deploy outside its change window waits, durably as a timer, until the window opens (36 h
// skipped here), shown as Scheduled=False; a cancel ends the wait; no opening fails it at once.
func TestAnOperationOutsideItsWindowWaitsForTheOpening(t *testing.T) {
	out := runWindowWait(t, 36*time.Hour, 0)
	require.Empty(t, out.Err)
	require.Equal(t, 36*time.Hour, out.Waited, "it starts when the window opens, not before")
	c := conditionIn(out.Mid.Conditions, contract.CondScheduled)
	require.NotNil(t, c, "%+v", out.Mid.Conditions)
	require.Equal(t, "OutsideChangeWindow", c.Reason)
	require.Contains(t, c.Message, "deploy waiting for the change window opening at ")
	require.NotNil(t, out.Mid.Waiting)
	require.NotNil(t, out.Mid.Waiting.Window)

	out = runWindowWait(t, 36*time.Hour, 2*time.Hour)
	require.Equal(t, "cancelled", out.Err)
	require.Equal(t, 2*time.Hour, out.Waited)

	out = runWindowWait(t, 0, 0)
	require.Contains(t, out.Err, "no change window opens for it within a year")
	require.Zero(t, out.Waited)
}

func conditionIn(cs []lifecycle.Condition, typ string) *lifecycle.Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}
