package workerapp

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/attest"
	slipclient "github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/controlplane"
	"github.com/slipway-dev/slipway/internal/tracing"
)

// pools reads the registered worker pools from their registry workflows' memos.
type pools struct{ c client.Client }

var _ activities.ControlPlanes = pools{}

// Pools lists every registered pool.
func (p pools) Pools(ctx context.Context) ([]controlplane.Pool, error) {
	return slipclient.New(p.c, "", "").ControlPlanes(ctx)
}

// RegisterPool records this pool (name, self, task queue, mirror) in its registry workflow,
// starting it on base if it is not running: the record outlives every worker of the pool.
func RegisterPool(ctx context.Context, c client.Client, base string, cfg Config) error {
	p := controlplane.Pool{Name: cfg.ControlPlane, Self: cfg.Self, TaskQueue: controlplane.TaskQueue(base, cfg.ControlPlane), Mirror: cfg.ForgeMirror}
	_, err := c.SignalWithStartWorkflow(ctx, contract.ControlPlaneWorkflowID(p.Name), contract.SignalRegisterPool, p,
		client.StartWorkflowOptions{ID: contract.ControlPlaneWorkflowID(p.Name), TaskQueue: base,
			StaticSummary: "worker pool " + p.Name}, contract.ControlPlaneWorkflowName, p)
	if err != nil {
		return fmt.Errorf("register control plane %s: %w", p.Name, err)
	}
	return nil
}

// PoolWorkers are a named pool's workers: one on base for entities and fleet workflows, one on
// the pool's own queue for the pipelines of the instances it manages. Both are registered.
func PoolWorkers(c client.Client, base string, cfg Config, acts *activities.Activities) ([]worker.Worker, error) {
	var ws []worker.Worker
	ics, err := Interceptors(cfg)
	if err != nil {
		return nil, err
	}
	for _, tq := range []string{base, controlplane.TaskQueue(base, cfg.ControlPlane)} {
		// Polling stops at once on SIGTERM; running activities get the grace (drain.go).
		w := worker.New(c, tq, worker.Options{Interceptors: append(ics, &countActivities{}), WorkerStopTimeout: cfg.workerGrace()})
		if err := Register(w, acts); err != nil {
			return nil, err
		}
		ws = append(ws, w)
		if cfg.ControlPlane == "" {
			break
		}
	}
	return ws, nil
}

// Interceptors are every worker's: the verifier of each start, update and signal it handles, the
// notice of a step that keeps failing (retrying.go) and the sender of step starts (stepstarts.go). A worker without the attestation key
// would run anyone's requests, so it does not start.
func Interceptors(cfg Config) ([]interceptor.WorkerInterceptor, error) {
	k := cfg.Attest
	if k == nil {
		var err error
		if k, err = attest.Load(); err != nil {
			return nil, fmt.Errorf("refusing to start: the worker verifies every request with the attestation key: %w", err)
		}
	}
	dc := cfg.Payloads
	if dc == nil {
		keys, err := payloadKeys(cfg)
		if err != nil {
			return nil, fmt.Errorf("signals are verified over their decoded arguments: %w", err)
		}
		dc = codec.DataConverter(keys)
	}
	ics := []interceptor.WorkerInterceptor{attest.WorkerInterceptor(k, attest.WithPayloads(dc),
		attest.ExemptScheduled(contract.DriftSweepWorkflowName)), &noticeRetries{failures: codec.FailureConverter(dc)}, &stepStarts{dc: dc}}
	if cfg.Tracing {
		// Outermost, so a refused request still has its span.
		ics = append([]interceptor.WorkerInterceptor{tracing.WorkerInterceptor()}, ics...)
	}
	return ics, nil
}

// Workers run together: the first in the foreground, the others beside it.
type Workers []worker.Worker

// Run starts the others, runs the first until interrupted, then stops them all.
func (ws Workers) Run(interrupt <-chan interface{}) error {
	for _, w := range ws[1:] {
		if err := w.Start(); err != nil {
			return err
		}
	}
	defer func() {
		for _, w := range ws[1:] {
			w.Stop()
		}
	}()
	return ws[0].Run(interrupt)
}
