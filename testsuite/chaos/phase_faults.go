package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/slipway-dev/slipway/internal/contract"
)

// FaultFigures are the transient-fault phase's figures.
type FaultFigures struct {
	Lifecycles, Converged, Failed int
	Faults                        int // injected, counted in the worker's log
	DupMRs, DupMerges, DupApplies int
	SerialJumps                   int
	Lost, ExtraOps                int
	Failures                      []string
}

// faults runs many lifecycles at a time on one worker whose forge, terraform and
// deployer calls fail at the configured rate, and checks each converged exactly once.
func (w *world) faults(ctx context.Context, rep *Report) error {
	spec := workerSpec{name: "faults", taskQueue: "chaos-faults", stateDir: filepath.Join(w.dir, "state", "faults"),
		env: []string{fmt.Sprintf("%s=%g", envFaults, w.cfg.FaultRate), fmt.Sprintf("%s=%d", envSeed, w.cfg.Seed)}}
	p, c, err := w.startLane(spec)
	if err != nil {
		return err
	}
	defer p.Stop()
	f := FaultFigures{Lifecycles: w.cfg.Lifecycles}
	var mu sync.Mutex
	sem := make(chan struct{}, w.cfg.Parallel)
	var wg sync.WaitGroup
	for i := 0; i < w.cfg.Lifecycles; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ref := contract.Ref{Tenant: "chaos", Name: fmt.Sprintf("fault-%03d", i+1)}
			o := w.lifecycle(ctx, c, spec, ref, nil)
			a, aerr := w.auditor.audit(ctx, c, ref)
			mu.Lock()
			defer mu.Unlock()
			if o.Completed {
				f.Converged++
			} else {
				f.Failed++
				f.Failures = append(f.Failures, ref.String()+": "+strings.Join(o.Failed, "; "))
			}
			if aerr != nil {
				f.Failures = append(f.Failures, ref.String()+": audit: "+aerr.Error())
				return
			}
			f.DupMRs += a.DupMRs()
			f.DupMerges += a.DupMerges()
			f.DupApplies += a.DupApplies(rep.Baseline)
			f.SerialJumps += a.SerialJump(rep.Baseline)
			f.Lost += a.Lost
			f.ExtraOps += a.ExtraOps
			w.logf("fault %s completed=%v %+v", ref, o.Completed, a)
		}()
	}
	wg.Wait()
	log, _ := os.ReadFile(w.logPath(spec.name))
	f.Faults = strings.Count(string(log), faultMarker+"\t")
	rep.Faults = &f
	return ctx.Err()
}
