package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite"
)

// dispatched records the order a one-slot worker ran queued work in.
type dispatched struct {
	mu    sync.Mutex
	order []string
}

func (d *dispatched) step(ctx context.Context, name string) error {
	d.mu.Lock()
	d.order = append(d.order, name)
	d.mu.Unlock()
	time.Sleep(20 * time.Millisecond) // a slot held, as a terraform step holds one
	return nil
}

// queued is one workflow whose single step inherits the workflow's priority, as a pipeline's do.
func queued(ctx workflow.Context, name string) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	return workflow.ExecuteActivity(ctx, "step", name).Get(ctx, nil)
}

// On the dev server as slipway starts it (matching.enableFairness), with slipway's priorities and
// fairness keys: a person's request queued behind a drift sweep's and a rollout's work runs first,
// the rollout's runs before the sweep's, and two tenants queued at one priority share the worker
// by turns (without fairness the second tenant's 10 would wait behind the first's 40).
func TestPriorityAndFairnessOrderQueuedWork(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	c := e.Client.Temporal
	run := func(t *testing.T, tq string, jobs []job) []string {
		t.Helper()
		ctx := context.Background()
		// Everything is queued before the worker polls: its order is the server's dispatch order.
		for _, j := range jobs {
			_, err := c.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: tq + "/" + j.name, TaskQueue: tq,
				Priority: contract.TaskPriority(j.priority, j.tenant)}, "queued", j.name)
			require.NoError(t, err)
		}
		d := &dispatched{}
		w := worker.New(c, tq, worker.Options{MaxConcurrentActivityExecutionSize: 1, MaxConcurrentWorkflowTaskExecutionSize: 2})
		w.RegisterWorkflowWithOptions(queued, workflow.RegisterOptions{Name: "queued"})
		w.RegisterActivityWithOptions(d.step, activity.RegisterOptions{Name: "step"})
		require.NoError(t, w.Start())
		defer w.Stop()
		require.Eventually(t, func() bool {
			d.mu.Lock()
			defer d.mu.Unlock()
			return len(d.order) == len(jobs)
		}, 45*time.Second, 50*time.Millisecond)
		return d.order
	}

	t.Run("priority", func(t *testing.T) {
		var jobs []job
		for i := range 8 {
			jobs = append(jobs, job{fmt.Sprintf("drift-%d", i), contract.PriorityDrift, "a"})
		}
		for i := range 8 {
			jobs = append(jobs, job{fmt.Sprintf("rollout-%d", i), contract.OperationPriority(contract.RolloutWorkflowID("r1")), "a"})
		}
		jobs = append(jobs, job{"person", contract.OperationPriority(""), "b"})
		order := run(t, e.TaskQueue+"-priority", jobs)
		t.Logf("order: %v", order)
		// The worker runs two workflow tasks at once, so the activity of the one dispatched second
		// may be scheduled first: the person's runs among the first two, and the first nine
		// dispatches are the person's and the rollout's eight, before any of the sweep's.
		require.Contains(t, order[:2], "person", "the person's request, queued last, runs first or second")
		for i, name := range order[:9] {
			if name != "person" {
				assert.Contains(t, name, "rollout-", "dispatch %d: every rollout step before the sweep's", i)
			}
		}
	})

	t.Run("fairness", func(t *testing.T) {
		var jobs []job
		for i := range 40 {
			jobs = append(jobs, job{fmt.Sprintf("a-%d", i), contract.PriorityRollout, "tenant-a"})
		}
		for i := range 10 {
			jobs = append(jobs, job{fmt.Sprintf("b-%d", i), contract.PriorityRollout, "tenant-b"})
		}
		order := run(t, e.TaskQueue+"-fairness", jobs)
		t.Logf("order: %v", order)
		b := 0
		for _, name := range order[:20] {
			if name[0] == 'b' {
				b++
			}
		}
		// Equal weights: while both have work queued, each gets half the dispatches (10 of the first
		// 20); the tolerance is 3 either way. First in, first out would give tenant-b none of them.
		assert.InDelta(t, 10, b, 3, "tenant-b's dispatches among the first 20 (order %v)", order)
	})
}

type job struct {
	name     string
	priority int
	tenant   string
}
