package e2e

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// holdDeployer keeps one instance's deploys running while held, and takes a little while over
// every deploy, so a rollout meets a busy instance and spans a worker restart.
type holdDeployer struct {
	deploy.Deployer
	held    string
	holding atomic.Bool
	slow    time.Duration
}

func (d *holdDeployer) Deploy(ctx context.Context, a deploy.App, deadline time.Time) (contract.AppStatus, error) {
	for a.Ref.String() == d.held && d.holding.Load() {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return contract.AppStatus{}, ctx.Err()
		}
	}
	time.Sleep(d.slow)
	return d.Deployer.Deploy(ctx, a, deadline)
}

// A rollout outlives its worker: the worker stops mid-rollout and another takes over from the
// history. An instance busy with an operator's deploy is never queued behind it: the rollout
// tries it in a later batch, once it is free. Pause and resume work from the CLI.
func TestRolloutSurvivesAWorkerRestartAndRetriesABusyInstanceLater(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	acts, err := instant.New()
	require.NoError(t, err)
	hold := &holdDeployer{Deployer: acts.Deployer, held: "roll/web-0", slow: 400 * time.Millisecond}
	acts.Deployer = hold
	workerapp.Attach(acts, e.Client.Temporal, e.TaskQueue)
	var current atomic.Pointer[worker.Worker]
	start := func() {
		w := worker.New(e.Client.Temporal, e.TaskQueue, worker.Options{Interceptors: e.Interceptors})
		require.NoError(t, workerapp.Register(w, acts))
		require.NoError(t, w.Start())
		current.Store(&w)
	}
	start()
	t.Cleanup(func() { (*current.Load()).Stop() })

	cfg := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	forEach(t, 12, 6, func(i int) {
		e.MustCLI(0, "create", fmt.Sprintf("roll/web-%d", i), "-f", cfg, "--wait")
		e.MustCLI(0, "deploy", fmt.Sprintf("roll/web-%d", i), "--wait")
	})

	// An operator's deploy holds web-0 while the rollout starts.
	hold.holding.Store(true)
	e.MustCLI(0, "deploy", "roll/web-0")
	require.Eventually(t, func() bool { return e.Status("roll/web-0").State == "Deploying" }, 30*time.Second, 50*time.Millisecond)
	e.MustCLI(0, "rollout", "start", "--id", "restart", "--stack", "example", "--tenant", "roll", "--set", "replicas=3",
		"--batch", "4", "--order", "ordinal")

	// Stop the worker once batch 1 has ended; another one carries on.
	require.Eventually(t, func() bool { return len(rolloutStatus(t, e, "restart").Ended) >= 1 }, time.Minute, 100*time.Millisecond)
	(*current.Load()).Stop()
	hold.holding.Store(false) // web-0's own deploy may end now
	time.Sleep(time.Second)
	start()

	paused := e.MustCLI(0, "rollout", "pause", "restart", "--reason", "look first")
	require.Contains(t, paused.Stdout, "Paused")
	e.MustCLI(0, "rollout", "resume", "restart")
	e.MustCLI(0, "rollout", "status", "restart", "--follow")
	st := rolloutStatus(t, e, "restart")
	require.Equal(t, contract.PhaseCompleted, st.Phase)
	require.Equal(t, 12, st.Updated)
	require.Equal(t, 12, st.Total)
	web0 := st.Instances[0]
	require.Equal(t, "roll/web-0", web0.Ref.String())
	require.Greater(t, web0.Batch, 1, "web-0 was busy in batch 1 and rolled in a later one")
	require.Equal(t, contract.RolloutUpdated, web0.Status)
	for i := range 12 {
		require.Contains(t, e.Status(fmt.Sprintf("roll/web-%d", i)).Rollout, "rollout/restart")
	}
}
