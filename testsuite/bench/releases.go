package main

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/identity"
)

const (
	previewQueue   = "bench-preview"
	upgradeQueue   = "bench-release-rollout"
	releaseFrom    = "1.0.0"
	releaseTo      = "1.1.0"
	upgradeCanary  = 10
	upgradePercent = 10
)

// releaseFleet starts a worker of its own on queue, cuts releases 1.0.0 and 1.1.0 of stack
// example through the StackWorkflow (the instant forge holds the sealed releases file), and
// provisions and deploys n instances pinned to 1.0.0 in tenant.
func (b *bench) releaseFleet(ctx context.Context, queue, tenant string, n int) (*workerProc, *client.Client, string, error) {
	w, err := startWorker(b.dir, b.env.Address, b.env.KeyFile, queue, b.o.workerSticky)
	if err != nil {
		return nil, nil, "", err
	}
	if err := waitPoller(ctx, b.env.Client.Temporal, queue); err != nil {
		w.stop()
		return nil, nil, "", err
	}
	c := client.New(b.env.Client.Temporal, queue, "")
	if err := cutReleases(ctx, c, nil); err != nil {
		w.stop()
		return nil, nil, "", err
	}
	refs := make([]contract.Ref, n)
	for i := range refs {
		refs[i] = contract.Ref{Tenant: tenant, Name: fmt.Sprintf("web-%d", i)}
	}
	fl, err := fleet{clients: []*client.Client{c}, workers: []*workerProc{w}, server: []int{b.env.Server.PID()},
		temporal: b.env.Client.Temporal, config: pinnedConfig(1)}.runRefs(ctx, refs)
	if err != nil {
		w.stop()
		return nil, nil, "", fmt.Errorf("provision and deploy the fleet on %s@%s: %w", rolloutStack, releaseFrom, err)
	}
	return w, c, fmt.Sprintf("the fleet on %s@%s was provisioned and deployed first, all at once: %.1f s", rolloutStack, releaseFrom,
		fl.wall.Seconds()), nil
}

// cutReleases cuts releases 1.0.0 and 1.1.0 of stack example through the StackWorkflow on c's
// queue; change, when set, commits to main between the two, so 1.1.0 differs from 1.0.0.
func cutReleases(ctx context.Context, c *client.Client, change func(context.Context) error) error {
	admin := identity.With(ctx, devenv.LocalAdmin())
	for _, v := range []string{releaseFrom, releaseTo} {
		if v == releaseTo && change != nil {
			if err := change(ctx); err != nil {
				return fmt.Errorf("change %s for %s: %w", rolloutStack, releaseTo, err)
			}
		}
		if _, err := c.StackRequest(admin, contract.StackRequest{Op: contract.StackOpRelease, Stack: rolloutStack, Version: v,
			Notes: "bench"}); err != nil {
			return fmt.Errorf("cut release %s@%s: %w", rolloutStack, v, err)
		}
	}
	return nil
}

// pinnedConfig is an instance's config on example@1.0.0.
func pinnedConfig(replicas int) string {
	return fmt.Sprintf("stack: %s@%s\nparameters:\n  greeting: hello\n  replicas: %d\n", rolloutStack, releaseFrom, replicas)
}

// previewRun is one timed `stack preview example --to 1.1.0`, the client call of both preview rows.
type previewRun struct {
	n                 int
	res               contract.PreviewResult
	wall, cpu, server time.Duration // cpu is the worker's
	events            int64
}

// timePreview starts the preview of tenant's instances moved to 1.1.0 on c's queue and waits for
// its result; workerCPU reads the CPU time of the worker that serves the queue.
func (b *bench) timePreview(ctx context.Context, c *client.Client, id, tenant string, n int, workerCPU func() time.Duration) (previewRun, error) {
	server := b.env.Server.PID()
	spec := contract.PreviewSpec{ID: id, Stack: rolloutStack, To: releaseTo, Tenant: tenant, Actor: "bench"}
	cpu0, server0 := workerCPU(), procCPU(server)
	start := time.Now()
	if err := c.StartPreview(identity.With(ctx, devenv.LocalAdmin()), spec); err != nil {
		return previewRun{}, fmt.Errorf("stack preview: %w", err)
	}
	res, err := c.Preview(ctx, spec.ID, true)
	p := previewRun{n: n, res: res, wall: time.Since(start), cpu: workerCPU() - cpu0, server: procCPU(server) - server0}
	if err != nil {
		return p, fmt.Errorf("stack preview: %w", err)
	}
	d, err := b.env.Client.Temporal.DescribeWorkflowExecution(ctx, contract.PreviewWorkflowID(spec.ID), "")
	if err != nil {
		return p, fmt.Errorf("describe the preview: %w", err)
	}
	p.events = d.GetWorkflowExecutionInfo().GetHistoryLength()
	return p, nil
}

// addPreview adds a preview row: the figures both rows share plus extra, and worker, the row's
// words on its worker; FAILED unless every instance planned.
func (b *bench) addPreview(section, name, note string, p previewRun, extra map[string]float64, worker string) error {
	n := float64(p.n)
	figures := map[string]float64{"instances": n, "planned": float64(p.res.Planned), "total": float64(p.res.Total),
		"groups": float64(len(p.res.Groups)), "wallS": p.wall.Seconds(), "msPerInstance": 1000 * p.wall.Seconds() / n,
		"workerCpuS": p.cpu.Seconds(), "serverCpuS": p.server.Seconds(), "serverCpuMsPerInstance": 1000 * p.server.Seconds() / n,
		"historyEvents": float64(p.events)}
	maps.Copy(figures, extra)
	if p.res.Planned != p.n {
		reason := fmt.Sprintf("%d of %d instances planned", p.res.Planned, p.n)
		for _, in := range p.res.Instances {
			if in.Outcome != contract.PreviewPlanned {
				reason += fmt.Sprintf("; e.g. %s %s: %s", in.Ref, in.Outcome, in.Message)
				break
			}
		}
		figures["failed"] = 1
		b.rep.add(row{Section: section, Name: name, Figures: figures, Text: "FAILED: " + reason, Note: note})
		return &rowFailedError{row: name, reason: reason}
	}
	b.rep.add(row{Section: section, Name: name, Figures: figures,
		Text: fmt.Sprintf("%d plans in %.1f s (%.1f ms/instance, %s); %s; server %.1f CPU-s (%.1f ms/instance); %d history events",
			p.n, p.wall.Seconds(), figures["msPerInstance"], plural(len(p.res.Groups), "group"), worker, p.server.Seconds(),
			figures["serverCpuMsPerInstance"], p.events),
		Note: note})
	return nil
}

// previewRow times `slipway stack preview example --to 1.1.0` over -preview instances pinned to
// 1.0.0: the StackPreviewWorkflow plans each at the default concurrency and groups the plans.
func (b *bench) previewRow(ctx context.Context) error {
	n := b.o.preview
	w, c, note, err := b.releaseFleet(ctx, previewQueue, "preview", n)
	if err != nil {
		return err
	}
	defer w.stop()
	w.resetPeak()
	p, err := b.timePreview(ctx, c, fmt.Sprintf("bench-%d", n), "preview", n, w.cpu)
	if err != nil {
		return err
	}
	_, peak := w.rss()
	return b.addPreview(fmt.Sprintf("stack preview (instant adapters, %d instances)", n), "preview", note, p,
		map[string]float64{"workerPeakRssMiB": peak}, fmt.Sprintf("worker %.1f CPU-s, peak RSS %.0f MiB", p.cpu.Seconds(), peak))
}

// releaseRolloutRow times `slipway rollout start --stack example --to 1.1.0` over
// -release-rollout instances pinned to 1.0.0: a canary wave of 10, then batches of 10%.
func (b *bench) releaseRolloutRow(ctx context.Context) error {
	n := b.o.releaseRollout
	section := fmt.Sprintf("release rollout (instant adapters, %d instances)", n)
	w, c, note, err := b.releaseFleet(ctx, upgradeQueue, "upgrade", n)
	if err != nil {
		return err
	}
	defer w.stop()
	server := b.env.Server.PID()
	spec := contract.RolloutSpec{ID: fmt.Sprintf("bench-release-%d", n), Stack: rolloutStack, Tenant: "upgrade", To: releaseTo,
		Canary: min(upgradeCanary, n), BatchPercent: upgradePercent, Order: contract.OrderOrdinal, MaxFailures: 1, Actor: "bench"}
	w.resetPeak()
	cpu0, server0 := w.cpu(), procCPU(server)
	start := time.Now()
	if err := c.StartRollout(identity.With(ctx, devenv.LocalAdmin()), spec); err != nil {
		return fmt.Errorf("rollout start --to %s: %w", releaseTo, err)
	}
	st, read, followErr := followRollout(ctx, c, spec.ID)
	wall := time.Since(start)
	workerCPU, serverCPU := w.cpu()-cpu0, procCPU(server)-server0
	_, peak := w.rss()
	runs, events, runsErr := rolloutRuns(ctx, b.env.Client.Temporal, spec.ID)
	figures := map[string]float64{"instances": float64(n), "wallS": wall.Seconds(), "perSecond": float64(n) / wall.Seconds(),
		"workerCpuS": workerCPU.Seconds(), "workerPeakRssMiB": peak, "serverCpuS": serverCPU.Seconds(),
		"runs": float64(runs), "continueAsNew": float64(max(runs-1, 0)), "historyEvents": float64(events),
		"followStatusQueries": float64(read.queries), "followInstancesRead": float64(read.instances)}
	if st != nil {
		figures["batches"], figures["ready"], figures["updated"], figures["total"] = float64(st.Batches), float64(st.Ready),
			float64(st.Updated), float64(st.Total)
		if mean, slowest, ok := batchTimes(st); ok {
			figures["sPerBatch"], figures["slowestBatchS"] = mean.Seconds(), slowest.Seconds()
		}
	}
	fail := func(reason string) error {
		figures["failed"] = 1
		b.rep.add(row{Section: section, Name: "release-rollout", Figures: figures, Text: "FAILED: " + reason, Note: note})
		return &rowFailedError{row: "release-rollout", reason: reason}
	}
	switch {
	case followErr != nil:
		return fail(followErr.Error() + statusLine(st))
	case st.Phase != contract.PhaseCompleted || st.Ready != n || st.Updated != n || st.Total != n:
		return fail(fmt.Sprintf("ended with ready/updated/total %d/%d/%d, want %d/%d/%d", st.Ready, st.Updated, st.Total, n, n, n) + statusLine(st))
	case runsErr != nil:
		return runsErr
	}
	b.rep.add(row{Section: section, Name: "release-rollout", Figures: figures,
		Text: fmt.Sprintf("%s@%s→%s: %d waves in %.1f s (%.1f instances/s, %.1f s/wave, slowest %.1f s); worker %.1f CPU-s, peak RSS %.0f MiB; server %.1f CPU-s; %s (%d continue-as-new), %d history events",
			rolloutStack, releaseFrom, releaseTo, st.Batches, wall.Seconds(), float64(n)/wall.Seconds(), figures["sPerBatch"],
			figures["slowestBatchS"], workerCPU.Seconds(), peak, serverCPU.Seconds(), plural(runs, "run"), runs-1, events),
		Note: note + fmt.Sprintf("; canary %d then batches of %d%%, no watch; worker CPU includes the %d status queries of the follower (%d instance records read)",
			spec.Canary, upgradePercent, read.queries, read.instances)})
	return nil
}
