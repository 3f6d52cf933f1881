package workerapp

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/contract"
)

// told records the step signals an activity's worker sends, and when.
type told struct {
	mu sync.Mutex
	at []time.Time
}

func (c *told) signal(context.Context, string, contract.StepEvent) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at = append(c.at, time.Now())
	return nil
}

func (c *told) times() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Time(nil), c.at...)
}

// A deferred start is told once its step has run contract.StepStartDelay, or at once when the
// attempt fails (its Retrying must name this step), before the result; a step that succeeds
// sooner tells nothing. A start from a run before deferral is told whatever the step does.
func TestStepStartIsToldOnlyForASlowOrFailedStep(t *testing.T) {
	dc := converter.GetDefaultDataConverter()
	for _, tc := range []struct {
		name     string
		deferred bool
		run      time.Duration
		fail     bool
		told     bool
	}{
		{"quick success, deferred", true, 0, false, false},
		{"quick failure, deferred", true, 0, true, true},
		{"slow success, deferred", true, contract.StepStartDelay + 500*time.Millisecond, false, true},
		{"quick success, from before deferral", false, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &told{}
			var ts testsuite.WorkflowTestSuite
			env := ts.NewTestActivityEnvironment()
			env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{&stepStarts{dc: dc, signal: c.signal}}})
			p, err := dc.ToPayload(contract.StepStart{Target: "instance/acme/web", Defer: tc.deferred,
				Event: contract.StepEvent{OpID: "op", Attempt: 1, Step: contract.StepRecord{Name: contract.OpenMR, Status: contract.StepRunning}}})
			require.NoError(t, err)
			env.SetHeader(&commonpb.Header{Fields: map[string]*commonpb.Payload{contract.HeaderStepStart: p}})
			var ended time.Time
			env.RegisterActivityWithOptions(func(ctx context.Context) error {
				time.Sleep(tc.run)
				ended = time.Now()
				if tc.fail {
					return errors.New("the forge said no")
				}
				return nil
			}, activity.RegisterOptions{Name: "OpenMergeRequest"})
			start := time.Now()
			_, err = env.ExecuteActivity("OpenMergeRequest")
			returned := time.Now()
			require.Equal(t, tc.fail, err != nil, "%v", err)
			at := c.times()
			if !tc.told {
				require.Empty(t, at, "a step that succeeded within %s tells nothing", contract.StepStartDelay)
				return
			}
			require.Len(t, at, 1)
			require.False(t, at[0].After(returned), "told before the attempt's result returned")
			if tc.run > contract.StepStartDelay {
				require.GreaterOrEqual(t, at[0].Sub(start), contract.StepStartDelay, "told after the delay")
				require.True(t, at[0].Before(ended), "told while the step still ran")
			}
		})
	}
}
