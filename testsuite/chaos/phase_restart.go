package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// RestartFigures are the server-restart phase's figures.
type RestartFigures struct {
	Lifecycles, Completed int
	Down                  time.Duration // from stop to the restarted server answering
	Lost, ExtraOps        int
	Failures              []string
}

// restartServer stops the dev server while lifecycles are mid-way and starts it again on
// the same port and database file; the lifecycles must finish as if nothing happened.
func (w *world) restartServer(ctx context.Context, rep *Report) error {
	spec := workerSpec{name: "restart", taskQueue: "chaos-restart", stateDir: filepath.Join(w.dir, "state", "restart")}
	p, c, err := w.startLane(spec)
	if err != nil {
		return err
	}
	defer p.Stop()
	f := RestartFigures{Lifecycles: w.cfg.RestartLifecycles}
	var mu sync.Mutex
	var wg sync.WaitGroup
	started := make(chan struct{}, w.cfg.RestartLifecycles)
	for i := 0; i < w.cfg.RestartLifecycles; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ref := contract.Ref{Tenant: "chaos", Name: fmt.Sprintf("restart-%02d", i+1)}
			sent := false
			o := w.lifecycle(ctx, c, spec, ref, func(op int) {
				if op == opCreate {
					started <- struct{}{}
					sent = true
				}
			})
			if !sent {
				started <- struct{}{}
			}
			a, aerr := w.auditor.audit(ctx, c, ref)
			mu.Lock()
			defer mu.Unlock()
			if o.Completed {
				f.Completed++
			} else {
				f.Failures = append(f.Failures, ref.String()+": "+strings.Join(o.Failed, "; "))
			}
			if aerr == nil {
				f.Lost += a.Lost
				f.ExtraOps += a.ExtraOps
			}
		}()
	}
	// Stop while every lifecycle is past create and into its deploy.
	for i := 0; i < w.cfg.RestartLifecycles; i++ {
		select {
		case <-started:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	time.Sleep(500 * time.Millisecond)
	t := time.Now()
	w.logf("restart: stopping the dev server")
	if err := w.server.Stop(); err != nil {
		return fmt.Errorf("stop dev server: %w", err)
	}
	time.Sleep(2 * time.Second)
	if err := w.startServer(ctx, w.port); err != nil {
		return fmt.Errorf("restart dev server on port %d: %w", w.port, err)
	}
	f.Down = time.Since(t).Round(10 * time.Millisecond)
	w.logf("restart: the dev server is back after %s", f.Down)
	wg.Wait()
	rep.Restart = &f
	return ctx.Err()
}
