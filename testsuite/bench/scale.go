package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

const (
	// scaleDriftedEvery is how often the drift-scale row's deployer reports an instance OutOfSync: 1%.
	scaleDriftedEvery = 100
)

// parkFleet starts a worker on tq whose instant forge holds the files of n instances of stack
// example in tenant tq without its bench- prefix
// (instant.FleetFiles; every drifted-th reported OutOfSync by its deployer) and parks
// them Deployed at the forge's seed revision, as the idle row parks its fleet. It skips each
// instance's provision and deploy (MRs, plans, applies): its terraform workspace is empty.
func (b *bench) parkFleet(ctx context.Context, tq string, n, drifted int) (*workerProc, []contract.Ref, time.Duration, error) {
	t0, tenant := time.Now(), scaleTenant(tq)
	w, err := startWorker(b.dir, b.env.Address, b.env.KeyFile, tq, b.o.workerSticky,
		"-fleet", fmt.Sprintf("%s/%d", tenant, n), "-fleet-drifted", fmt.Sprint(drifted))
	if err != nil {
		return nil, nil, 0, err
	}
	if err := waitPoller(ctx, b.env.Client.Temporal, tq); err != nil {
		w.stop()
		return nil, nil, 0, err
	}
	refs := make([]contract.Ref, n)
	for i := range refs {
		refs[i] = instant.FleetRef(tenant, i)
	}
	now, rev := time.Now().UTC(), instant.SeedRevision()
	err = each(refs, 32, func(ref contract.Ref) error {
		in := instant.Parked(ref, "observer/"+tq, now)
		in.State.Revision, in.State.DeployedRevision = rev, rev
		_, err := b.env.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{
			ID: contract.InstanceWorkflowID(ref), TaskQueue: tq}, contract.InstanceWorkflowName, in)
		return err
	})
	if err == nil {
		err = waitParked(ctx, b.env.Client.Temporal, tq, n)
	}
	if err != nil {
		w.stop()
		return nil, nil, 0, fmt.Errorf("park %d instances: %w", n, err)
	}
	return w, refs, time.Since(t0), nil
}

// rolloutScaleRow parks -rollout-scale instances and times `rollout start --stack example --set
// replicas=2 --batch 10%` to every one of them, plan included, to its workflow's close.
func (b *bench) rolloutScaleRow(ctx context.Context) error {
	n, tq := b.o.rolloutScale, "bench-rollout-scale"
	section := fmt.Sprintf("rollout at scale (instant adapters, %d parked instances)", n)
	load0 := loadavg()
	w, _, setup, err := b.parkFleet(ctx, tq, n, 0)
	if err != nil {
		return err
	}
	defer w.stop()
	c := client.New(b.env.Client.Temporal, tq, "")
	spec := contract.RolloutSpec{ID: fmt.Sprintf("scale-%d", n), Stack: rolloutStack, Tenant: scaleTenant(tq),
		Set: []contract.Setting{{Key: "replicas", Value: "2"}}, BatchPercent: 10, MaxUnavailable: 0,
		Order: contract.OrderOrdinal, MaxFailures: 1, Actor: "bench"}
	server := b.env.Server.PID()
	w.resetPeak()
	cpu0, server0 := w.cpu(), procCPU(server)
	start := time.Now()
	if err := c.StartRollout(ctx, spec); err != nil {
		return b.rolloutFailedOf(section, "run", fmt.Sprintf("rollout start: %v", err), nil, "", spec.ID, tq)
	}
	st, read, followErr := followRollout(ctx, c, spec.ID)
	wall := time.Since(start)
	workerCPU, serverCPU := w.cpu()-cpu0, procCPU(server)-server0
	_, peak := w.rss()
	runs, events, runsErr := rolloutRuns(ctx, b.env.Client.Temporal, spec.ID)
	load1 := loadavg()
	figures := map[string]float64{"instances": float64(n), "setupS": setup.Seconds(), "wallS": wall.Seconds(),
		"perSecond": float64(n) / wall.Seconds(), "workerCpuS": workerCPU.Seconds(), "serverCpuS": serverCPU.Seconds(),
		"workerCpuMsPerInstance": ms(workerCPU) / float64(n), "serverCpuMsPerInstance": ms(serverCPU) / float64(n),
		"workerPeakRssMiB": peak, "runs": float64(runs), "continueAsNew": float64(max(runs-1, 0)),
		"historyEvents": float64(events), "followStatusQueries": float64(read.queries), "followInstancesRead": float64(read.instances)}
	batchFigures(figures, st)
	switch {
	case followErr != nil:
		return b.rolloutFailedOf(section, "run", followErr.Error()+statusLine(st), figures, "", spec.ID, tq)
	case st.Phase != contract.PhaseCompleted || st.Ready != n || st.Updated != n || st.Total != n:
		return b.rolloutFailedOf(section, "run", fmt.Sprintf("ended with ready/updated/total %d/%d/%d, want %d/%d/%d",
			st.Ready, st.Updated, st.Total, n, n, n)+statusLine(st), figures, "", spec.ID, tq)
	case runsErr != nil:
		return runsErr
	}
	b.rep.add(row{Section: section, Name: "run", Figures: figures,
		Text: fmt.Sprintf("%d batches in %.1f s (%.1f instances/s; %.1f s a batch, slowest %.1f); worker %.1f CPU-s (%.1f ms an instance), peak RSS %.0f MiB; server %.1f CPU-s (%.1f ms an instance); %s (%d continue-as-new), %d history events",
			st.Batches, wall.Seconds(), float64(n)/wall.Seconds(), figures["sPerBatch"], figures["slowestBatchS"],
			workerCPU.Seconds(), figures["workerCpuMsPerInstance"], peak, serverCPU.Seconds(), figures["serverCpuMsPerInstance"],
			plural(runs, "run"), runs-1, events),
		Note: fmt.Sprintf("setup (worker start, forge seeded, %d parked) %.1f s, not timed; worker CPU includes the %d status queries of the follower (%d instance records read); load average %s before, %s after",
			n, setup.Seconds(), read.queries, read.instances, load0, load1)})
	return nil
}

// driftScaleRow parks -drift-scale instances, 1% of them reported OutOfSync by the deployer,
// and times one drift sweep over them (`slipway drift check --stack example --remediate deploy`).
func (b *bench) driftScaleRow(ctx context.Context) error {
	n, tq := b.o.driftScale, "bench-drift-scale"
	section := fmt.Sprintf("drift sweep at scale (instant adapters, %d parked instances, 1%% drifted)", n)
	load0 := loadavg()
	w, _, setup, err := b.parkFleet(ctx, tq, n, scaleDriftedEvery)
	if err != nil {
		return err
	}
	defer w.stop()
	c := client.New(b.env.Client.Temporal, tq, "")
	scope := contract.DriftScope{Stack: rolloutStack, Tenant: scaleTenant(tq), Remediate: contract.RemediateDeploy}
	server := b.env.Server.PID()
	w.resetPeak()
	cpu0, server0 := w.cpu(), procCPU(server)
	start := time.Now()
	res, sweepErr := c.SweepDrift(identity.With(ctx, devenv.LocalAdmin()), scope)
	wall := time.Since(start)
	workerCPU, serverCPU := w.cpu()-cpu0, procCPU(server)-server0
	_, peak := w.rss()
	runs, events, runsErr := workflowRuns(ctx, b.env.Client.Temporal,
		fmt.Sprintf("WorkflowType = '%s' AND TaskQueue = '%s'", contract.DriftSweepWorkflowName, tq))
	// The remediation deploys the sweep sent run on after it: until no instance is drifted.
	redeployed, remErr := waitCount(ctx, b.env.Client.Temporal, fmt.Sprintf("TaskQueue = '%s' AND %s = 'True'",
		tq, contract.SAInstanceDrifted.GetName()), 0, 5*time.Minute)
	load1 := loadavg()
	outcomes := map[string]int{}
	for _, o := range res.Instances {
		outcomes[o.Outcome]++
	}
	want := (n + scaleDriftedEvery - 1) / scaleDriftedEvery
	figures := map[string]float64{"instances": float64(n), "setupS": setup.Seconds(), "wallS": wall.Seconds(),
		"msPerInstance": ms(wall) / float64(n), "workerCpuS": workerCPU.Seconds(), "serverCpuS": serverCPU.Seconds(),
		"workerCpuMsPerInstance": ms(workerCPU) / float64(n), "serverCpuMsPerInstance": ms(serverCPU) / float64(n),
		"workerPeakRssMiB": peak, "runs": float64(runs), "continueAsNew": float64(max(runs-1, 0)),
		"historyEvents": float64(events), "checked": float64(res.Checked), "drifted": float64(res.Drifted),
		"remediating": float64(outcomes[contract.DriftRemediated]), "busy": float64(outcomes[contract.DriftBusy]),
		"refused": float64(outcomes[contract.DriftRefused]), "remediatedS": redeployed.Seconds()}
	fail := func(reason string) error {
		figures["failed"] = 1
		b.rep.add(row{Section: section, Name: "sweep", Figures: figures, Text: "FAILED: " + reason,
			Note: "worker log: " + b.dir + "/worker-" + tq + ".log"})
		return &rowFailedError{row: "sweep", reason: reason}
	}
	switch {
	case sweepErr != nil:
		return fail(fmt.Sprintf("drift sweep: %v", sweepErr))
	case res.Checked != n || res.Drifted != want || outcomes[contract.DriftRemediated] != want:
		return fail(fmt.Sprintf("checked %d, drifted %d, outcomes %v; want %d checked, %d drifted and remediating", res.Checked,
			res.Drifted, outcomes, n, want))
	case remErr != nil:
		return fail(remErr.Error())
	case runsErr != nil:
		return runsErr
	}
	b.rep.add(row{Section: section, Name: "sweep", Figures: figures,
		Text: fmt.Sprintf("%d checked in %.1f s (%.1f ms an instance), %d drifted, each sent a deploy; worker %.1f CPU-s (%.1f ms an instance), peak RSS %.0f MiB; server %.1f CPU-s (%.1f ms an instance); %s (%d continue-as-new), %d history events",
			res.Checked, wall.Seconds(), figures["msPerInstance"], res.Drifted, workerCPU.Seconds(), figures["workerCpuMsPerInstance"],
			peak, serverCPU.Seconds(), figures["serverCpuMsPerInstance"], plural(runs, "run"), runs-1, events),
		Note: fmt.Sprintf("concurrency %s; the %d remediation deploys were done %.1f s after the sweep (not in its figures); setup (worker start, forge seeded, %d parked) %.1f s, not timed; load average %s before, %s after",
			"the default (4)", want, redeployed.Seconds(), n, setup.Seconds(), load0, load1)})
	return nil
}

// waitCount waits until visibility counts want workflows for query, and says how long it took.
func waitCount(ctx context.Context, c sdkclient.Client, query string, want int64, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	var got int64
	for time.Since(start) < limit {
		resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
		if err != nil {
			return 0, err
		}
		if got = resp.GetCount(); got == want {
			return time.Since(start), nil
		}
		time.Sleep(250 * time.Millisecond)
	}
	return 0, fmt.Errorf("%d workflows for %q after %s, want %d", got, query, limit, want)
}

// loadavg is the machine's 1, 5 and 15 minute load averages.
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(data))
	return strings.Join(f[:min(3, len(f))], " / ")
}

// scaleTenant is the tenant of a scale row's fleet: one per row, as a fleet's instances outlive its row.
func scaleTenant(tq string) string { return strings.TrimPrefix(tq, "bench-") }
