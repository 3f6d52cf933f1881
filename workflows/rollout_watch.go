package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Bounds of a wave's watch.
const (
	// waveReadyWait is how long a wave's instances may take to turn Ready after their deploys.
	waveReadyWait = 15 * time.Minute
	// wavePoll is how often the watch reads the instances' Ready.
	wavePoll = 10 * time.Second
)

// watchWave, under --watch, waits until the wave's updated instances are Ready, then watches them
// for the watch time; one that is not Ready in time, or turns un-Ready, pauses the rollout, named
// in its reason. An abort ends the watch at once.
func (r *rollout) watchWave(ctx workflow.Context) error {
	if r.s.Spec.Watch <= 0 || r.s.Phase != contract.PhaseRunning || !watchesWaves(ctx) {
		return nil
	}
	in := contract.WatchWaveInput{Rollout: contract.RolloutWorkflowID(r.s.Spec.ID), Watch: r.s.Spec.Watch, ReadyWait: waveReadyWait, Poll: wavePoll}
	for _, i := range r.s.Instances {
		if i.Batch == r.s.Batch && (i.Status == contract.RolloutUpdated || i.Status == contract.RolloutAtTarget) {
			in.Refs = append(in.Refs, i.Ref)
		}
	}
	if len(in.Refs) == 0 {
		return nil
	}
	r.s.Reason = fmt.Sprintf("watching wave %d for %s", r.s.Batch, r.s.Spec.Watch)
	r.show(ctx)
	wctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	fut := workflow.ExecuteActivity(workflow.WithActivityOptions(wctx, workflow.ActivityOptions{
		StartToCloseTimeout:    in.ReadyWait + in.Watch + time.Minute,
		HeartbeatTimeout:       heartbeatTimeout,
		ScheduleToCloseTimeout: in.ReadyWait + in.Watch + transientBudget,
		RetryPolicy:            retryPolicy(),
	}), contract.ActWatchWave, in)
	if err := workflow.Await(ctx, func() bool { return fut.IsReady() || r.s.Phase == contract.PhaseAborted }); err != nil {
		return err
	}
	if r.s.Phase == contract.PhaseAborted {
		return nil // the deferred cancel ends the watch
	}
	var out contract.WatchWaveOutput
	err := fut.Get(ctx, &out)
	if r.s.Phase == contract.PhaseRunning {
		r.s.Reason = ""
	}
	switch {
	case err != nil:
		out.Reason = "the watch failed: " + errorMessage(err)
	case out.Healthy:
		r.show(ctx)
		return nil
	}
	if r.s.Phase == contract.PhaseRunning {
		who := out.Reason
		if out.Ref.Name != "" {
			who = out.Ref.String() + " " + out.Reason
		}
		r.s.Phase = contract.PhasePaused
		r.s.Reason = fmt.Sprintf("wave %d: %s; resume to go on, abort, or undo it (slipway rollout undo %s)", r.s.Batch, who, r.s.Spec.ID)
	}
	r.show(ctx)
	return nil
}
