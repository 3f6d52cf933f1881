package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Run does the phases cfg asks for and returns their figures.
func Run(ctx context.Context, cfg Config, out io.Writer) (*Report, error) {
	if cfg.Seed == 0 {
		cfg.Seed = time.Now().UnixNano()
	}
	dir := cfg.WorkDir
	keep := dir != ""
	if !keep {
		var err error
		if dir, err = os.MkdirTemp("", "slipway-chaos-"); err != nil {
			return nil, err
		}
	}
	dir, _ = filepath.Abs(dir)
	start := time.Now()
	w, err := newWorld(ctx, cfg, dir, out)
	if err != nil {
		return nil, fmt.Errorf("start the real stack (logs in %s): %w", dir, err)
	}
	defer w.close()
	fmt.Fprintf(out, "chaos: dev server %s, PostgreSQL %s:%d, deployer %s, work dir %s, seed %d\n",
		w.server.Address, w.pg.Host, w.pg.Port, cfg.Deployer, dir, cfg.Seed)
	rep := &Report{Seed: cfg.Seed, Dir: dir}
	if rep.Baseline, err = w.baseline(ctx); err != nil {
		return nil, err
	}
	phases := []struct {
		name string
		run  func(context.Context, *Report) error
	}{
		{"killpoints", w.killPoints},
		{"faults", w.faults},
		{"restart", w.restartServer},
		{"conflicts", w.conflicts},
		{"secrets", w.secretsGrep},
	}
	for _, p := range phases {
		if !cfg.Phases[p.name] {
			continue
		}
		t := time.Now()
		fmt.Fprintf(out, "chaos: %s ...\n", p.name)
		if err := p.run(ctx, rep); err != nil {
			return nil, fmt.Errorf("%s: %w (logs in %s)", p.name, err, dir)
		}
		rep.Durations = append(rep.Durations, fmt.Sprintf("%s %s", p.name, time.Since(t).Round(time.Second)))
	}
	rep.Total = time.Since(start).Round(time.Second)
	if !keep && len(rep.OffTarget()) == 0 {
		defer os.RemoveAll(dir)
	}
	return rep, nil
}

// baseline runs one clean lifecycle: the applies, destroys and state serial it ends with
// are what one run per operation gives, so more elsewhere is a duplicate.
func (w *world) baseline(ctx context.Context) (Audit, error) {
	spec := workerSpec{name: "baseline", taskQueue: "chaos-baseline", stateDir: filepath.Join(w.dir, "state", "baseline")}
	p, c, err := w.startLane(spec)
	if err != nil {
		return Audit{}, err
	}
	defer p.Stop()
	ref := contract.Ref{Tenant: "chaos", Name: "baseline"}
	o := runLifecycle(ctx, c, ref, stackChaos, w.cfg.OpTimeout, nil)
	if !o.Completed {
		return Audit{}, fmt.Errorf("the clean baseline lifecycle failed: %v", o.Failed)
	}
	a, err := w.auditor.audit(ctx, c, ref)
	if err != nil {
		return Audit{}, err
	}
	if a.MRs != configChanges || a.Merges != configChanges || a.Lost != 0 || a.Applies == 0 || a.Destroys == 0 {
		return Audit{}, fmt.Errorf("the clean baseline lifecycle is off: %+v", a)
	}
	return a, nil
}
