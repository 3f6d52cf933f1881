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

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

// throughputRows starts n provision+deploy lifecycles at once on the one instant worker, for
// each size, then states how the cost per lifecycle grows with n.
func (b *bench) throughputRows(ctx context.Context) error {
	var rows []row
	for _, n := range b.o.lifecycles {
		r, err := b.throughput(ctx, n)
		if err != nil {
			return err
		}
		b.rep.add(r)
		rows = append(rows, r)
	}
	if len(rows) > 1 {
		b.rep.add(growth(rows[0], rows[len(rows)-1]))
	}
	return nil
}

func (b *bench) throughput(ctx context.Context, n int) (row, error) {
	tenant := fmt.Sprintf("tp%d", n)
	lat := make([]time.Duration, n)
	errs := make([]error, n)
	b.worker.resetPeak()
	cpu0, server0 := b.worker.cpu(), procCPU(b.env.Server.PID())
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ref := steps.Ref{Tenant: tenant, Name: fmt.Sprintf("i%05d", i)}
			t0 := time.Now()
			if _, errs[i] = submit(ctx, b.c, ref, lifecycle.OpProvision, instanceConfig(1)); errs[i] != nil {
				return
			}
			_, errs[i] = submit(ctx, b.c, ref, lifecycle.OpDeploy, "")
			lat[i] = time.Since(t0)
		}(i)
	}
	wg.Wait()
	wall := time.Since(start)
	cpu, server := b.worker.cpu()-cpu0, procCPU(b.env.Server.PID())-server0
	_, peak := b.worker.rss()
	for _, err := range errs {
		if err != nil {
			return row{}, err
		}
	}
	events, err := b.eventsPerLifecycle(ctx, tenant, min(n, 5))
	if err != nil {
		return row{}, err
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p50, p99 := lat[n/2], lat[min(n-1, int(math.Ceil(float64(n)*0.99))-1)]
	return row{Section: "throughput (instant adapters, one worker)", Name: fmt.Sprintf("%d concurrent provision+deploy", n),
		Figures: map[string]float64{"lifecycles": float64(n), "wallS": wall.Seconds(), "perSecond": float64(n) / wall.Seconds(),
			"p50Ms": ms(p50), "p99Ms": ms(p99), "workerCpuS": cpu.Seconds(), "workerPeakRssMiB": peak,
			"workerCpuMsPerLifecycle": ms(cpu) / float64(n), "serverCpuS": server.Seconds(),
			"serverCpuMsPerLifecycle": ms(server) / float64(n), "historyEventsPerLifecycle": events},
		Text: fmt.Sprintf("%6.1f s wall, %5.1f/s, p50 %5.2f s, p99 %5.2f s, worker %5.1f CPU-s (%.0f ms each), peak RSS %.0f MiB; server %.0f ms CPU and %.0f history events each",
			wall.Seconds(), float64(n)/wall.Seconds(), p50.Seconds(), p99.Seconds(), cpu.Seconds(), ms(cpu)/float64(n), peak,
			ms(server)/float64(n), events)}, nil
}

// growth compares the cost per lifecycle at the smallest and largest sizes: linear growth keeps
// the worker's CPU per lifecycle flat, and throughput flat once the worker is saturated.
func growth(small, large row) row {
	f := func(r row, k string) float64 { return r.Figures[k] }
	cpuRatio := f(large, "workerCpuMsPerLifecycle") / f(small, "workerCpuMsPerLifecycle")
	wallPer := func(r row) float64 { return f(r, "wallS") / f(r, "lifecycles") }
	verdict := "linear"
	if cpuRatio > 1.5 {
		verdict = "worse than linear"
	}
	return row{Section: "throughput (instant adapters, one worker)", Name: "growth",
		Figures: map[string]float64{"cpuPerLifecycleRatio": cpuRatio, "wallPerLifecycleRatio": wallPer(large) / wallPer(small)},
		Text: fmt.Sprintf("%s: from %.0f to %.0f lifecycles, worker CPU per lifecycle x%.2f, wall per lifecycle x%.2f",
			verdict, f(small, "lifecycles"), f(large, "lifecycles"), cpuRatio, wallPer(large)/wallPer(small))}
}

// eventsPerLifecycle is the mean history length, over sample lifecycles, of the instance and
// every workflow it started (pipelines and name claims), read from each run's history.
func (b *bench) eventsPerLifecycle(ctx context.Context, tenant string, sample int) (float64, error) {
	var total int64
	for i := 0; i < sample; i++ {
		id := workflows.InstanceWorkflowID(steps.Ref{Tenant: tenant, Name: fmt.Sprintf("i%05d", i)})
		n, err := historyTree(ctx, b.env.Client.Temporal, id, "")
		if err != nil {
			return 0, err
		}
		total += n
	}
	return float64(total) / float64(sample), nil
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
