package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// throughputRows starts n provision+deploy lifecycles at once on one instant worker, for each
// size (and on -compare's worker too), then states how the cost per lifecycle grows with n.
func (b *bench) throughputRows(ctx context.Context) error {
	var rows []row
	for _, n := range b.o.lifecycles {
		for _, t := range b.targets() {
			f := fleet{clients: []*client.Client{t.c}, workers: []*workerProc{t.worker}, server: []int{b.env.Server.PID()},
				temporal: b.env.Client.Temporal}
			l, err := f.run(ctx, fmt.Sprintf("tp%d%s", n, t.suffix), n)
			if err != nil {
				return err
			}
			r := l.row("throughput (instant adapters, one worker)", fmt.Sprintf("%d concurrent provision+deploy%s", n, t.label))
			b.rep.add(r)
			if t.label == "" {
				rows = append(rows, r)
			}
		}
	}
	if len(rows) > 1 {
		b.rep.add(growth(rows[0], rows[len(rows)-1]))
	}
	return nil
}

// fleet is where lifecycles run: a client per task queue, each served by one worker process,
// on a Temporal whose processes are server.
type fleet struct {
	clients  []*client.Client
	workers  []*workerProc
	server   []int
	database int // the PostgreSQL postmaster; 0 for the dev server, whose SQLite is in its process
	temporal sdkclient.Client
	config   string // the instances' config ("": instanceConfig(1))
}

type lifecycles struct {
	n                  int
	wall, p50, p99     time.Duration
	workerCPU, server  time.Duration
	database           time.Duration // PostgreSQL's, when the server keeps its data there
	workerPeakMiB      float64
	eventsPerLifecycle float64
}

// run starts n provision+deploy lifecycles at once, spread over the fleet's task queues.
func (f fleet) run(ctx context.Context, tenant string, n int) (lifecycles, error) {
	refs := make([]contract.Ref, n)
	for i := range refs {
		refs[i] = contract.Ref{Tenant: tenant, Name: fmt.Sprintf("i%05d", i)}
	}
	return f.runRefs(ctx, refs)
}

// runRefs provisions and deploys every ref at once, spread over the fleet's task queues.
func (f fleet) runRefs(ctx context.Context, refs []contract.Ref) (lifecycles, error) {
	n := len(refs)
	lat := make([]time.Duration, n)
	errs := make([]error, n)
	cpu := func(pids []int, ws []*workerProc) (t time.Duration) {
		for _, p := range pids {
			t += procCPU(p)
		}
		for _, w := range ws {
			t += w.cpu()
		}
		return t
	}
	for _, w := range f.workers {
		w.resetPeak()
	}
	cpu0, server0, db0 := cpu(nil, f.workers), cpu(f.server, nil), procTreeCPU(f.database)
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, ref := f.clients[i%len(f.clients)], refs[i]
			t0 := time.Now()
			config := f.config
			if config == "" {
				config = instanceConfig(1)
			}
			if _, errs[i] = submit(ctx, c, ref, lifecycle.OpProvision, config); errs[i] != nil {
				return
			}
			_, errs[i] = submit(ctx, c, ref, lifecycle.OpDeploy, "")
			lat[i] = time.Since(t0)
		}(i)
	}
	wg.Wait()
	out := lifecycles{n: n, wall: time.Since(start), workerCPU: cpu(nil, f.workers) - cpu0, server: cpu(f.server, nil) - server0}
	if f.database != 0 {
		out.database = procTreeCPU(f.database) - db0
	}
	for _, w := range f.workers {
		_, peak := w.rss()
		out.workerPeakMiB = max(out.workerPeakMiB, peak)
	}
	for _, err := range errs {
		if err != nil {
			return out, err
		}
	}
	var err error
	if out.eventsPerLifecycle, err = eventsPerLifecycle(ctx, f.temporal, refs[:min(n, 5)]); err != nil {
		return out, err
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	out.p50, out.p99 = lat[n/2], lat[min(n-1, int(math.Ceil(float64(n)*0.99))-1)]
	return out, nil
}

func (l lifecycles) row(section, name string) row {
	n := float64(l.n)
	return row{Section: section, Name: name,
		Figures: map[string]float64{"lifecycles": n, "wallS": l.wall.Seconds(), "perSecond": n / l.wall.Seconds(),
			"p50Ms": ms(l.p50), "p99Ms": ms(l.p99), "workerCpuS": l.workerCPU.Seconds(), "workerPeakRssMiB": l.workerPeakMiB,
			"workerCpuMsPerLifecycle": ms(l.workerCPU) / n, "serverCpuS": l.server.Seconds(),
			"serverCpuMsPerLifecycle": ms(l.server) / n, "historyEventsPerLifecycle": l.eventsPerLifecycle,
			"postgresCpuMsPerLifecycle": ms(l.database) / n},
		Text: fmt.Sprintf("%6.1f s wall, %5.1f/s, p50 %5.2f s, p99 %5.2f s, worker %5.1f CPU-s (%.0f ms each), peak RSS %.0f MiB; server %.0f ms CPU and %.0f history events each",
			l.wall.Seconds(), n/l.wall.Seconds(), l.p50.Seconds(), l.p99.Seconds(), l.workerCPU.Seconds(), ms(l.workerCPU)/n,
			l.workerPeakMiB, ms(l.server)/n, l.eventsPerLifecycle)}
}

// growth compares the cost per lifecycle at the smallest and largest sizes. Growth is linear
// when the wall time per lifecycle stays within 20% once the worker is saturated; the CPU
// ratios say whether the worker or the server is where it grows.
func growth(small, large row) row {
	f := func(r row, k string) float64 { return r.Figures[k] }
	ratio := func(k string) float64 { return f(large, k) / f(small, k) }
	wallPer := func(r row) float64 { return f(r, "wallS") / f(r, "lifecycles") }
	wallRatio := wallPer(large) / wallPer(small)
	verdict := "linear"
	if wallRatio > 1.2 {
		verdict = "worse than linear"
	}
	return row{Section: "throughput (instant adapters, one worker)", Name: "growth",
		Figures: map[string]float64{"wallPerLifecycleRatio": wallRatio, "workerCpuPerLifecycleRatio": ratio("workerCpuMsPerLifecycle"),
			"serverCpuPerLifecycleRatio": ratio("serverCpuMsPerLifecycle")},
		Text: fmt.Sprintf("%s from %.0f to %.0f lifecycles: wall per lifecycle x%.2f, worker CPU per lifecycle x%.2f, server CPU per lifecycle x%.2f",
			verdict, f(small, "lifecycles"), f(large, "lifecycles"), wallRatio, ratio("workerCpuMsPerLifecycle"), ratio("serverCpuMsPerLifecycle"))}
}

// eventsPerLifecycle is the mean history length, over the sample lifecycles, of the instance
// and the pipelines it started, read from each run's history.
func eventsPerLifecycle(ctx context.Context, c sdkclient.Client, sample []contract.Ref) (float64, error) {
	var total int64
	for _, ref := range sample {
		n, err := historyTree(ctx, c, contract.InstanceWorkflowID(ref), "")
		if err != nil {
			return 0, err
		}
		total += n
	}
	return float64(total) / float64(len(sample)), nil
}

// historyTree counts the events of one run and of the children it started.
func historyTree(ctx context.Context, c sdkclient.Client, id, run string) (int64, error) {
	it := c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var n int64
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return 0, fmt.Errorf("history of %s: %w", id, err)
		}
		n++
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			m, err := historyTree(ctx, c, a.GetWorkflowExecution().GetWorkflowId(), a.GetWorkflowExecution().GetRunId())
			if err != nil {
				return 0, err
			}
			n += m
		}
	}
	return n, nil
}
