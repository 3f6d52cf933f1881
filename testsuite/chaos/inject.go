package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sync"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/forge"
)

// injector fails a share of calls with a transient error: half before the call (nothing
// happened) and half after it (the effect happened, the answer was lost), the harder case.
type injector struct {
	rate float64
	mu   sync.Mutex
	rnd  *rand.Rand
}

func newInjector(rate float64, seed int64) *injector {
	return &injector{rate: rate, rnd: rand.New(rand.NewSource(seed))}
}

// FaultError is an injected transient failure; it is retryable like a network blip.
type FaultError struct{ Where, When string }

func (e *FaultError) Error() string {
	return fmt.Sprintf("chaos: injected fault %s %s", e.When, e.Where)
}

// call runs fn unless a fault hits before it, and loses its answer if one hits after.
func (in *injector) call(where string, fn func() error) error {
	if in == nil || in.rate == 0 {
		return fn()
	}
	in.mu.Lock()
	r := in.rnd.Float64()
	in.mu.Unlock()
	if r < in.rate/2 {
		return in.fault(where, phaseBefore)
	}
	if err := fn(); err != nil {
		return err
	}
	if r < in.rate {
		return in.fault(where, phaseAfter)
	}
	return nil
}

func (in *injector) fault(where, when string) error {
	// One line per fault: the driver counts them in the worker's log.
	fmt.Fprintf(os.Stderr, "%s\t%s\t%s\n", faultMarker, where, when)
	return &FaultError{Where: where, When: when}
}

const faultMarker = "CHAOS-FAULT"

// faultyForge is a forge whose every call may fail transiently.
type faultyForge struct {
	forge.Forge
	in *injector
}

func (f faultyForge) Head(ctx context.Context) (sha string, err error) {
	err = f.in.call("forge.Head", func() error { sha, err = f.Forge.Head(ctx); return err })
	return sha, err
}

func (f faultyForge) ReadDir(ctx context.Context, rev, dir string) (files map[string][]byte, err error) {
	err = f.in.call("forge.ReadDir", func() error { files, err = f.Forge.ReadDir(ctx, rev, dir); return err })
	return files, err
}

func (f faultyForge) Open(ctx context.Context, c forge.Change) (mr forge.MergeRequest, err error) {
	err = f.in.call("forge.Open", func() error { mr, err = f.Forge.Open(ctx, c); return err })
	return mr, err
}

func (f faultyForge) Merge(ctx context.Context, m forge.MergeRequest) (mr forge.MergeRequest, err error) {
	err = f.in.call("forge.Merge", func() error { mr, err = f.Forge.Merge(ctx, m); return err })
	return mr, err
}

func (f faultyForge) Get(ctx context.Context, branch string) (mr forge.MergeRequest, ok bool, err error) {
	err = f.in.call("forge.Get", func() error { mr, ok, err = f.Forge.Get(ctx, branch); return err })
	return mr, ok, err
}

func (f faultyForge) ListOpen(ctx context.Context, prefix string) (mrs []forge.MergeRequest, err error) {
	err = f.in.call("forge.ListOpen", func() error { mrs, err = f.Forge.ListOpen(ctx, prefix); return err })
	return mrs, err
}

func (f faultyForge) Close(ctx context.Context, m forge.MergeRequest) (mr forge.MergeRequest, err error) {
	err = f.in.call("forge.Close", func() error { mr, err = f.Forge.Close(ctx, m); return err })
	return mr, err
}

// faultyDeployer is a deployer whose every call may fail transiently.
type faultyDeployer struct {
	deploy.Deployer
	in *injector
}

func (d faultyDeployer) Deploy(ctx context.Context, app deploy.App, deadline time.Time) (st contract.AppStatus, err error) {
	err = d.in.call("deployer.Deploy", func() error { st, err = d.Deployer.Deploy(ctx, app, deadline); return err })
	return st, err
}

func (d faultyDeployer) Status(ctx context.Context, app deploy.App) (st contract.AppStatus, err error) {
	err = d.in.call("deployer.Status", func() error { st, err = d.Deployer.Status(ctx, app); return err })
	return st, err
}

func (d faultyDeployer) Remove(ctx context.Context, app deploy.App) (st contract.AppStatus, err error) {
	err = d.in.call("deployer.Remove", func() error { st, err = d.Deployer.Remove(ctx, app); return err })
	return st, err
}
