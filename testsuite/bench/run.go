package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
)

// bench is one run: the dev server, the worker process over instant adapters, and the client.
type bench struct {
	o       options
	dir     string
	env     *devenv.Env
	worker  *workerProc
	c       *client.Client // on the instant worker's task queue
	compare *target        // -compare's worker, if any
	rep     report
	started time.Time
}

const instantQueue = "bench-instant"

func run(ctx context.Context, o options) error {
	dir, err := os.MkdirTemp("", "slipway-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b := &bench{o: o, dir: dir, rep: report{Header: header()}, started: time.Now()}
	fmt.Println(b.rep.Header)
	// The real row's env: local git, real terraform, no deployer; its worker is the bench's own.
	if b.env, err = devenv.Start(ctx, devenv.EnvOptions{StateDir: dir, Headless: true, Deployer: "none",
		TaskQueue: "bench-real", NoWorker: true}); err != nil {
		return err
	}
	defer b.env.Stop()
	if b.env.Server == nil {
		return fmt.Errorf("the bench measures a dev server of its own, but found one already at %s", b.env.Address)
	}
	var profile []string
	if o.cpuProfile != "" {
		if err := os.MkdirAll(o.cpuProfile, 0o755); err != nil {
			return fmt.Errorf("-cpu-profile: %w", err)
		}
		profile = []string{"-cpu-profile", o.cpuProfile}
	}
	if b.worker, err = startWorker(dir, b.env.Address, b.env.KeyFile, instantQueue, o.workerSticky, profile...); err != nil {
		return err
	}
	defer func() { b.worker.stop() }()
	ctx, unwatch := b.worker.watch(ctx)
	defer unwatch()
	b.c = client.New(b.env.Client.Temporal, instantQueue, "")
	if o.compare != "" {
		if b.compare, err = b.startCompare(ctx, o.compare); err != nil {
			return err
		}
		defer b.compare.worker.stop()
	}
	if _, err := b.floor(ctx, floorRegular, 1, 1); err != nil { // waits for the worker to poll
		return fmt.Errorf("warm-up: %w", err)
	}
	var failed []error // rows that printed FAILED; the bench still saves the figures, then exits 1
	for _, r := range []struct {
		name string
		fn   func(context.Context) error
	}{{"floor", b.floorRows}, {"pipelines", b.pipelineRows}, {"update", b.updateRow}, {"provider", b.providerRow},
		{"throughput", b.throughputRows}, {"idle", b.idleRows}, {"idle-timed", b.idleTimedRows}, {"cluster", b.clusterRows}, {"rollout", b.rolloutRows}, {"rollout-scale", b.rolloutScaleRow}, {"drift-scale", b.driftScaleRow}, {"metrics", b.metricsRow},
		{"preview", b.previewRow}, {"preview-real", b.previewRealRow}, {"release-rollout", b.releaseRolloutRow}} {
		if !o.want(r.name) {
			continue
		}
		if err := r.fn(ctx); err != nil {
			var rf *rowFailedError
			if errors.As(err, &rf) {
				failed = append(failed, fmt.Errorf("%s: %w", r.name, err))
				continue
			}
			return fmt.Errorf("%s: %w", r.name, err)
		}
	}
	path, err := b.rep.save(o.out)
	if err != nil {
		return err
	}
	fmt.Printf("\nraw figures: %s (bench took %s)\n", path, time.Since(b.started).Round(time.Second))
	return errors.Join(failed...)
}

// floor runs runs bare workflows of steps steps one after another and returns ms per step.
func (b *bench) floor(ctx context.Context, wf string, runs, steps int) (float64, error) {
	start := time.Now()
	for i := 0; i < runs; i++ {
		r, err := b.env.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{TaskQueue: instantQueue}, wf, steps)
		if err != nil {
			return 0, err
		}
		if err := r.Get(ctx, nil); err != nil {
			return 0, err
		}
	}
	return ms(time.Since(start)) / float64(runs*steps), nil
}

func (b *bench) floorRows(ctx context.Context) error {
	for _, f := range []struct{ wf, name string }{{floorRegular, "regular activity step"}, {floorLocal, "local activity step"}} {
		perStep, err := b.floor(ctx, f.wf, b.o.runs, b.o.steps)
		if err != nil {
			return err
		}
		b.rep.add(row{Section: "floor", Name: f.name, Figures: map[string]float64{"msPerStep": perStep},
			Text: fmt.Sprintf("%6.2f ms/step  (%d workflows of %d steps)", perStep, b.o.runs, b.o.steps)})
	}
	return nil
}

// floorPerStep is this run's regular-activity floor, measured first when the row was left out.
func (b *bench) floorPerStep(ctx context.Context) (float64, error) {
	if r, ok := b.rep.find("floor", "regular activity step"); ok {
		return r.Figures["msPerStep"], nil
	}
	return b.floor(ctx, floorRegular, b.o.runs, b.o.steps)
}
