package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/workflows"
)

// A canary wave of one goes first, then batches; each wave is watched before the next starts, and
// an instance that turns un-Ready during the watch pauses the rollout, named, until resume.
func TestRolloutWatchesEachWaveAndAnUnhealthyInstancePausesIt(t *testing.T) {
	env, f := newRolloutEnv(t, updates(5))
	var watched [][]string
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.WatchWaveInput) (contract.WatchWaveOutput, error) {
		var refs []string
		for _, r := range in.Refs {
			refs = append(refs, r.String())
		}
		watched = append(watched, refs)
		require.Equal(t, 10*time.Minute, in.Watch)
		if len(watched) == 2 {
			return contract.WatchWaveOutput{Ref: in.Refs[1], Reason: "went un-Ready during the watch: Ready=False (Degraded: app web health Degraded)"}, nil
		}
		return contract.WatchWaveOutput{Healthy: true}, nil
	}, activity.RegisterOptions{Name: contract.ActWatchWave})
	var paused contract.RolloutStatus
	var sentWhenPaused int
	env.RegisterDelayedCallback(func() {
		paused, sentWhenPaused = *queryRollout(t, env), len(f.sent)
		env.UpdateWorkflow(contract.UpdateRolloutResume, "u1", &updateCallbacks{t: t}, contract.RolloutRequest{Actor: "ann"})
	}, time.Hour)
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r5", Stack: "web", To: "1.5.0",
		Canary: 1, BatchSize: 2, Watch: 10 * time.Minute, MaxFailures: 1}})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, contract.PhasePaused, paused.Phase)
	require.Contains(t, paused.Reason, "wave 2: acme/web-2 went un-Ready during the watch: Ready=False (Degraded: app web health Degraded)")
	require.Contains(t, paused.Reason, "slipway rollout undo r5")
	require.Equal(t, 3, sentWhenPaused, "the canary and wave 2 deployed; wave 3 waits")
	var st contract.RolloutStatus
	require.NoError(t, env.GetWorkflowResult(&st))
	require.Equal(t, contract.PhaseCompleted, st.Phase)
	require.Equal(t, 3, st.Batches)
	require.Equal(t, [][]string{{"acme/web-0"}, {"acme/web-1", "acme/web-2"}, {"acme/web-3", "acme/web-4"}}, watched)
}

// Without --watch no wave is watched (and the run records no version marker for it).
func TestRolloutWithoutWatchNeverWatches(t *testing.T) {
	env, _ := newRolloutEnv(t, updates(2))
	env.RegisterActivityWithOptions(func(context.Context, contract.WatchWaveInput) (contract.WatchWaveOutput, error) {
		t.Error("watched without --watch")
		return contract.WatchWaveOutput{Healthy: true}, nil
	}, activity.RegisterOptions{Name: contract.ActWatchWave})
	env.ExecuteWorkflow(contract.RolloutWorkflowName, contract.RolloutInput{Spec: contract.RolloutSpec{ID: "r6", Stack: "web", BatchSize: 1, MaxFailures: 1}})
	require.NoError(t, env.GetWorkflowError())
}

func TestAssignBatchesPutsTheCanaryWaveFirst(t *testing.T) {
	acts := updates(6)
	require.Equal(t, 4, workflows.AssignBatches(contract.RolloutSpec{Canary: 1, BatchSize: 2}, acts))
	require.Equal(t, []int{1, 2, 2, 3, 3, 4}, batchesOf(acts))
	require.Equal(t, 3, workflows.AssignBatches(contract.RolloutSpec{Canary: 2, BatchPercent: 50}, acts), "50% of the 4 after the canary")
	require.Equal(t, []int{1, 1, 2, 2, 3, 3}, batchesOf(acts))
	require.Equal(t, 2, workflows.AssignBatches(contract.RolloutSpec{Canary: 6, BatchSize: 3}, acts), "a canary of everything is no canary")
}
