package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// BenchmarkObserverIdleFleet parks 1,000 Deployed instances behind an instant deployer and lets
// the real observer sweep them; one iteration is one sweep. It shows what observation costs a
// quiet fleet (one list call a sweep, no instance workflow task), then what ten changed apps cost.
// Run: go test ./testsuite/e2e -run '^$' -bench ObserverIdleFleet -benchtime 20x
func BenchmarkObserverIdleFleet(b *testing.B) {
	const fleet, interval, perHour = 1000, time.Second, float64(time.Hour / (30 * time.Second))
	// The framework runs a benchmark more than once: each run parks its own fleet on its own queue.
	tenant := fmt.Sprintf("fleet-n%d", b.N)
	e := testsuite.NewEnv(b, func(o *devenv.EnvOptions) { o.NoWorker, o.TaskQueue = true, o.TaskQueue+"-"+tenant })
	dep := instant.NewDeployer()
	acts := *e.Activities
	acts.Deployer = dep
	workerapp.Attach(&acts, e.Client.Temporal, e.TaskQueue)
	w := worker.New(e.Client.Temporal, e.TaskQueue, worker.Options{Interceptors: e.Interceptors})
	require.NoError(b, workerapp.Register(w, &acts))
	require.NoError(b, w.Start())
	defer w.Stop()
	ctx := context.Background()
	observer := contract.ObserverWorkflowID(e.TaskQueue, dep.Connection())

	refs := parkFleet(b, e, dep, observer, tenant, fleet)
	waitWatched(b, e, fleet)
	_, err := workerapp.StartObserver(ctx, e.Client.Temporal, e.TaskQueue, &acts, interval)
	require.NoError(b, err)
	first := waitSweeps(b, e, observer, 1)
	require.Equal(b, fleet, first.Last.Instances)

	events0, lists0, cpu0 := fleetEvents(b, e, refs), dep.Lists(), cpuTime()
	b.ResetTimer()
	last := waitSweeps(b, e, observer, first.Sweeps+b.N)
	b.StopTimer()
	sweeps := float64(last.Sweeps - first.Sweeps)
	cpu := cpuTime() - cpu0
	instanceEvents := fleetEvents(b, e, refs) - events0
	require.Zero(b, last.Signalled-first.Signalled, "a quiet fleet is told nothing")

	// Ten apps change: exactly ten instances are told, once.
	for _, r := range refs[:10] {
		app := instant.Healthy(r)
		app.Health = "Degraded"
		dep.Set(r, app)
	}
	changed := waitSweeps(b, e, observer, last.Sweeps+2)
	changedEvents := fleetEvents(b, e, refs) - events0 - instanceEvents

	obsEvents, sweepMs := observerCost(b, e, observer)
	b.ReportMetric(float64(dep.Lists()-lists0)/sweeps, "list-calls/sweep")
	b.ReportMetric(float64(instanceEvents)/sweeps, "instance-events/sweep")
	b.ReportMetric(sweepMs, "sweep-ms")
	b.ReportMetric(float64(cpu.Milliseconds())/sweeps, "worker-cpu-ms/sweep")
	b.ReportMetric(float64(cpu.Milliseconds())/sweeps*perHour/1000, "worker-cpu-s/hour@30s")
	b.ReportMetric(obsEvents*perHour, "history-events/hour@30s")
	b.ReportMetric(float64(changed.Signalled-last.Signalled), "told-after-10-changes")
	b.ReportMetric(float64(changedEvents), "instance-events-for-10-changes")
	b.Logf("fleet %d, %v sweeps at %s: %.1f list calls and %.0f instance history events a sweep; 10 changes -> %d told, %d instance events",
		fleet, sweeps, interval, float64(dep.Lists()-lists0)/sweeps, float64(instanceEvents)/sweeps,
		changed.Signalled-last.Signalled, changedEvents)
}

// parkFleet starts n instance workflows already Deployed behind dep, as a continue-as-new
// would carry them, with the fingerprint their deploy recorded.
func parkFleet(b *testing.B, e *testsuite.Env, dep *instant.Deployer, observer, tenant string, n int) []contract.Ref {
	refs := make([]contract.Ref, n)
	for i := range refs {
		refs[i] = contract.Ref{Tenant: tenant, Name: fmt.Sprintf("i%04d", i)}
		dep.Set(refs[i], instant.Healthy(refs[i]))
	}
	now := time.Now().UTC()
	eachRef(refs, func(ref contract.Ref) {
		_, err := e.Client.Temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
			ID: contract.InstanceWorkflowID(ref), TaskQueue: e.TaskQueue,
		}, contract.InstanceWorkflowName, instant.Parked(ref, observer, now))
		require.NoError(b, err)
	})
	return refs
}

// eachRef runs fn for every ref, 16 at a time: a thousand calls to the dev server in seconds.
func eachRef(refs []contract.Ref, fn func(contract.Ref)) {
	jobs := make(chan contract.Ref)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ref := range jobs {
				fn(ref)
			}
		}()
	}
	for _, r := range refs {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
}

// waitWatched waits until visibility lists n watched instances with their fingerprints.
func waitWatched(b *testing.B, e *testsuite.Env, n int) {
	var got int64
	var err error
	ok := assert.Eventually(b, func() bool {
		var resp *workflowservice.CountWorkflowExecutionsResponse
		resp, err = e.Client.Temporal.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("TaskQueue = '%s' AND InstanceState = 'Deployed' AND AppObserved IS NOT NULL", e.TaskQueue)})
		got = resp.GetCount()
		return err == nil && got == int64(n)
	}, 2*time.Minute, 250*time.Millisecond)
	require.True(b, ok, "%d of %d instances parked with a fingerprint (last error: %v)", got, n, err)
}

func waitSweeps(b *testing.B, e *testsuite.Env, observer string, n int) *contract.ObserverState {
	var st *contract.ObserverState
	require.Eventually(b, func() bool {
		var err error
		st, err = e.Client.Observer(context.Background(), observer)
		return err == nil && st.Sweeps >= n && st.Failures == 0
	}, time.Duration(n+30)*2*time.Second, 50*time.Millisecond)
	return st
}

// fleetEvents sums the live history length of the instance workflows (describe, not
// visibility: a history that grew without an upsert must count too).
func fleetEvents(b *testing.B, e *testsuite.Env, refs []contract.Ref) int64 {
	var total atomic.Int64
	eachRef(refs, func(ref contract.Ref) {
		d, err := e.Client.Temporal.DescribeWorkflowExecution(context.Background(), contract.InstanceWorkflowID(ref), "")
		require.NoError(b, err)
		total.Add(d.GetWorkflowExecutionInfo().GetHistoryLength())
	})
	return total.Load()
}

// observerCost reads the observer's history: events per sweep and the mean sweep activity time.
func observerCost(b *testing.B, e *testsuite.Env, id string) (eventsPerSweep, sweepMs float64) {
	it := e.Client.Temporal.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	scheduled := map[int64]time.Time{}
	var events, sweeps int
	var total time.Duration
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(b, err)
		events++
		if ev.GetActivityTaskScheduledEventAttributes() != nil {
			scheduled[ev.GetEventId()] = ev.GetEventTime().AsTime()
		}
		if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil {
			sweeps++
			total += ev.GetEventTime().AsTime().Sub(scheduled[a.GetScheduledEventId()])
		}
	}
	require.NotZero(b, sweeps)
	return float64(events) / float64(sweeps), float64(total.Microseconds()) / 1000 / float64(sweeps)
}

// cpuTime is this process's user+system CPU time: the worker's, with the test's client.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
