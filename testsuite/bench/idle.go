package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// idleRows parks n Deployed instances on a fresh worker process for each size, with the SDK's
// sticky cache and with each smaller cache size asked for, and reports what they cost.
func (b *bench) idleRows(ctx context.Context) error { return b.idleRowsOf(ctx, false) }

// idleTimedRows are the idle rows again with each instance expiring (its timer and warning points
// pending) and covered by an allow change window: what time as a control costs a parked fleet.
func (b *bench) idleTimedRows(ctx context.Context) error { return b.idleRowsOf(ctx, true) }

func (b *bench) idleRowsOf(ctx context.Context, timed bool) error {
	for _, n := range b.o.idle {
		covered := false
		for _, size := range b.o.sticky {
			if size >= n && covered {
				continue // a cache holding every instance already measured: the same row again
			}
			covered = covered || size >= n
			r, err := b.idle(ctx, n, size, timed)
			if err != nil {
				return err
			}
			b.rep.add(r)
		}
	}
	return nil
}

func (b *bench) idle(ctx context.Context, n, sticky int, timed bool) (row, error) {
	tq, section, extra := fmt.Sprintf("bench-idle-%d-%d", n, sticky), "idle (Deployed, waiting)", []string(nil)
	if timed {
		dir, err := windowPolicy(b.dir)
		if err != nil {
			return row{}, err
		}
		tq, section = fmt.Sprintf("bench-idle-timed-%d-%d", n, sticky), "idle, expiring (720h, warn 24h, 1h) inside an allow window"
		extra = []string{"-policy-dir", dir}
	}
	w, err := startWorker(b.dir, b.env.Address, b.env.KeyFile, tq, sticky, extra...)
	if err != nil {
		return row{}, err
	}
	defer w.stop()
	if err := waitPoller(ctx, b.env.Client.Temporal, tq); err != nil {
		return row{}, err
	}
	base, _ := w.rss()
	refs := make([]contract.Ref, n)
	for i := range refs {
		refs[i] = contract.Ref{Tenant: tq, Name: fmt.Sprintf("i%05d", i)}
	}
	now := time.Now().UTC()
	parkStart := time.Now()
	if err := each(refs, 32, func(ref contract.Ref) error {
		in := instant.Parked(ref, "observer/"+tq, now)
		if timed {
			in.State.Expiry = benchExpiry(now)
		}
		_, err := b.env.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
			ID: contract.InstanceWorkflowID(ref), TaskQueue: tq}, contract.InstanceWorkflowName, in)
		return err
	}); err != nil {
		return row{}, err
	}
	if err := waitParked(ctx, b.env.Client.Temporal, tq, n); err != nil {
		return row{}, err
	}
	park := time.Since(parkStart)
	time.Sleep(5 * time.Second) // parked: the worker's GC headroom follows its allocation rate every 2 s (workerapp.SizeCache)
	rss, peak := w.rss()
	mem, profile, err := w.memStats(b.dir)
	if err != nil {
		return row{}, err
	}
	if _, err := keepProfile(strings.TrimSuffix(profile, ".pprof")+".goroutines.pprof", b.o.out); err != nil {
		return row{}, err
	}
	if profile, err = keepProfile(profile, b.o.out); err != nil {
		return row{}, err
	}
	events, bytes, err := historySize(ctx, b.env.Client.Temporal, refs)
	if err != nil {
		return row{}, err
	}
	// The first parked are the least recently used: evicted when the cache is smaller than n.
	sample := min(20, n)
	evicted, err := queryLatency(ctx, b.env.Client.Temporal, refs[:sample])
	if err != nil {
		return row{}, err
	}
	cached, err := queryLatency(ctx, b.env.Client.Temporal, refs[n-sample:])
	if err != nil {
		return row{}, err
	}
	if timed {
		if err := expiryKept(ctx, b.env.Client.Temporal, refs[n-1]); err != nil {
			return row{}, err
		}
	}
	name := fmt.Sprintf("%d parked, sticky cache %d", n, sticky)
	wake := fmt.Sprintf("query %.1f ms cached", ms(cached))
	if sticky < n {
		wake += fmt.Sprintf(", %.1f ms evicted (replayed)", ms(evicted))
	}
	return row{Section: section, Name: name,
		Figures: map[string]float64{"instances": float64(n), "stickyCache": float64(sticky), "workerRssMiB": rss,
			"workerRssOverIdleMiB": rss - base, "workerPeakRssMiB": peak, "kibPerInstance": (rss - base) * 1024 / float64(n),
			"historyEvents": events, "historyBytes": bytes, "parkS": park.Seconds(),
			"queryCachedMs": ms(cached), "queryEvictedMs": ms(evicted),
			"workerHeapInuseMiB": mem.HeapInuseMiB, "workerHeapLiveMiB": mem.HeapLiveMiB,
			"workerStackMiB": mem.StackInuseMiB, "workerGoSysMiB": mem.SysMiB, "workerGoroutines": float64(mem.Goroutines)},
		Text: fmt.Sprintf("worker RSS %4.0f MiB (+%.0f MiB, %.1f KiB each; peak %.0f), history %.0f events / %.1f KiB each, %s",
			rss, rss-base, (rss-base)*1024/float64(n), peak, events, bytes/1024, wake),
		Note: fmt.Sprintf("parked in %.1f s; Go heap in use %.0f MiB (%.0f live), stacks %.0f MiB, %d goroutines; heap profile %s",
			park.Seconds(), mem.HeapInuseMiB, mem.HeapLiveMiB, mem.StackInuseMiB, mem.Goroutines, profile)}, nil
}

// each runs fn for every ref, conc at a time, and returns the first error.
func each(refs []contract.Ref, conc int, fn func(contract.Ref) error) error {
	jobs := make(chan contract.Ref)
	var wg sync.WaitGroup
	var first atomic.Pointer[error]
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ref := range jobs {
				if err := fn(ref); err != nil {
					first.CompareAndSwap(nil, &err)
				}
			}
		}()
	}
	for _, r := range refs {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}

// waitPoller waits until a worker polls tq, so a row never times the worker's start.
func waitPoller(ctx context.Context, c sdkclient.Client, tq string) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		resp, err := c.DescribeTaskQueue(ctx, tq, 1) // TASK_QUEUE_TYPE_WORKFLOW
		if err == nil && len(resp.GetPollers()) > 0 {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no worker polls %s after a minute", tq)
}

// waitParked waits until visibility shows all n instances past their first workflow task.
func waitParked(ctx context.Context, c sdkclient.Client, tq string, n int) error {
	deadline := time.Now().Add(10 * time.Minute)
	var got int64
	for time.Now().Before(deadline) {
		resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("TaskQueue = '%s' AND InstanceState = 'Deployed' AND AppObserved IS NOT NULL", tq)})
		if got = resp.GetCount(); err == nil && got == int64(n) {
			return nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return fmt.Errorf("%d of %d instances parked on %s after 10 minutes", got, n, tq)
}

// historySize is the mean history of the parked instances (a sample of at most 100).
func historySize(ctx context.Context, c sdkclient.Client, refs []contract.Ref) (events, bytes float64, err error) {
	sample := refs[:min(100, len(refs))]
	for _, ref := range sample {
		d, err := c.DescribeWorkflowExecution(ctx, contract.InstanceWorkflowID(ref), "")
		if err != nil {
			return 0, 0, err
		}
		events += float64(d.GetWorkflowExecutionInfo().GetHistoryLength())
		bytes += float64(d.GetWorkflowExecutionInfo().GetHistorySizeBytes())
	}
	return events / float64(len(sample)), bytes / float64(len(sample)), nil
}

// queryLatency is the median time of one status query to each of refs, one after another.
func queryLatency(ctx context.Context, c sdkclient.Client, refs []contract.Ref) (time.Duration, error) {
	var ds []time.Duration
	for _, ref := range refs {
		t0 := time.Now()
		v, err := c.QueryWorkflow(ctx, contract.InstanceWorkflowID(ref), "", contract.QueryStatus, contract.StatusRequest{})
		if err != nil {
			return 0, fmt.Errorf("query %s: %w", ref, err)
		}
		var st contract.Status
		if err := v.Get(&st); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(t0))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], nil
}

// benchExpiry is a parked instance's expiry, as a config's expires: 720h under a schema with warn:
// [24h, 1h] leaves it (carried over from the run before): its timer runs from the first task.
func benchExpiry(now time.Time) *contract.Expiry {
	return &contract.Expiry{ExpiryPlan: contract.ExpiryPlan{At: now.Add(720 * time.Hour), Action: "archive",
		Warn: []time.Duration{24 * time.Hour, time.Hour}, Max: 720 * time.Hour}, Actor: "bench", SetAt: now}
}

// windowPolicy writes the default policy bundle with an allow window covering every instance, and
// returns its directory. The bench runs from the repository's root, like make bench.
func windowPolicy(dir string) (string, error) {
	rego, err := os.ReadFile(filepath.Join("internal", "policy", "default", "slipway.rego"))
	if err != nil {
		return "", fmt.Errorf("the idle-timed row's policy bundle (run the bench from the repository's root): %w", err)
	}
	dir = filepath.Join(dir, "idle-timed-policy")
	data := `{"slipway": {"groups": ["platform-admins", "tenant:*"], "forge_users": {}, "people": {}, "windows": [
  {"name": "daily", "kind": "allow", "start": "0 0 * * *", "duration": "24h"}]}}`
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "slipway.rego"), rego, 0o644); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "data.json"), []byte(data), 0o644)
}

// expiryKept checks a parked instance kept its expiry, no warning sent yet: the row measured timers.
func expiryKept(ctx context.Context, c sdkclient.Client, ref contract.Ref) error {
	v, err := c.QueryWorkflow(ctx, contract.InstanceWorkflowID(ref), "", contract.QueryStatus, contract.StatusRequest{})
	if err != nil {
		return fmt.Errorf("query %s: %w", ref, err)
	}
	var st contract.Status
	if err := v.Get(&st); err != nil {
		return err
	}
	if st.Expiry == nil || st.Expiry.Warned != 0 {
		return fmt.Errorf("%s: parked with an expiry, but its status says %+v", ref, st.Expiry)
	}
	return nil
}
