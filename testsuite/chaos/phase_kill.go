package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// KillResult is one kill point's lifecycle.
type KillResult struct {
	Point     KillPoint
	Fired     bool // the worker really died there
	Missed    bool // a mid point whose activity ended before the kill
	Restarts  int
	Completed bool
	Audit     Audit
	Err       string
	Took      time.Duration
}

// killPoints runs one lifecycle per kill point, each with its own worker process that
// SIGKILLs itself at the point and is restarted at once without it.
func (w *world) killPoints(ctx context.Context, rep *Report) error {
	points := w.cfg.points()
	results := make([]KillResult, len(points))
	sem := make(chan struct{}, w.cfg.KillParallel)
	var wg sync.WaitGroup
	for i, k := range points {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = w.killOne(ctx, i, k)
			w.logf("kill %-40s fired=%v completed=%v %s", k, results[i].Fired, results[i].Completed, results[i].Err)
		}()
	}
	wg.Wait()
	rep.Kills = results
	return ctx.Err()
}

func (w *world) killOne(ctx context.Context, i int, k KillPoint) KillResult {
	start := time.Now()
	res := KillResult{Point: k}
	name := fmt.Sprintf("kill-%02d", i+1)
	spec := workerSpec{name: name, taskQueue: "chaos-" + name, stateDir: filepath.Join(w.dir, "state", name)}
	if k.needsProvider() {
		spec.stack = stackTime
	}
	ref := contract.Ref{Tenant: "chaos", Name: name}
	armed := spec
	armed.env = []string{envKill + "=" + k.env(), envGitHang + "=" + filepath.Join(w.dir, "state", name+".git-hang")}
	p, err := w.startWorker(armed)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	// The supervisor restarts the worker, unarmed, as soon as it dies: a crash loop's restart.
	var mu sync.Mutex
	stop := make(chan struct{})
	supervised := make(chan struct{})
	go func() {
		defer close(supervised)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			mu.Lock()
			if p.Exited() != nil {
				res.Restarts++
				if np, err := w.startWorker(spec); err == nil {
					p = np
				}
			}
			mu.Unlock()
		}
	}()
	c := w.client(spec.taskQueue)
	o := w.lifecycle(ctx, c, spec, ref, nil)
	// Audit while a worker runs: the status query needs one.
	if res.Audit, err = w.auditor.audit(ctx, c, ref); err != nil && !o.Completed {
		o.Failed = append(o.Failed, "audit: "+err.Error())
	} else if err != nil {
		res.Err = "audit: " + err.Error()
	}
	close(stop)
	<-supervised
	mu.Lock()
	_ = p.Stop()
	mu.Unlock()
	res.Completed = o.Completed
	if !o.Completed {
		res.Err = strings.Join(o.Failed, "; ")
	}
	log, _ := os.ReadFile(w.logPath(name))
	res.Fired = strings.Contains(string(log), killMarker+"\t"+k.String())
	res.Missed = strings.Contains(string(log), missMarker+"\t"+k.String())
	if k.Phase == phaseGit && res.Completed && !w.anyLogHas(gitLockRemoved) {
		// The kill left main.lock: some worker's merge must have said it removed it.
		res.Completed, res.Err = false, "no worker log says: "+gitLockRemoved
	}
	if k.needsProvider() && res.Completed && !strings.Contains(string(log), cacheReleased) && !strings.Contains(string(log), cacheEmptied) {
		// The kill left the cache marked busy: the restarted worker's init must have said it emptied it.
		res.Completed, res.Err = false, "the worker's log does not say: "+cacheEmptied
	}
	res.Took = time.Since(start)
	return res
}

// gitLockRemoved is what a worker logs when it removes the main.lock a killed merge left.
const gitLockRemoved = "removed stale git lock refs/heads/main.lock"

// cacheEmptied is what a worker's init logs when it empties the plugin cache a killed init left.
const cacheEmptied = "terraform: emptied the plugin cache"

// cacheReleased is what a chaos worker logs when its kill inside init came after the init let
// the cache go (the lock file was seen late): there is then nothing for the next init to empty.
const cacheReleased = "CHAOS-CACHE-RELEASED"

// anyLogHas reports whether a worker's log holds s.
func (w *world) anyLogHas(s string) bool {
	logs, _ := filepath.Glob(w.logPath("*"))
	for _, p := range logs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
