package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// instantEnv is a test's env whose only worker runs over instant adapters; adjust may swap one
// (a slow deployer, say) before the worker starts. The worker stops with the test.
func instantEnv(t *testing.T, adjust func(*activities.Activities)) (*testsuite.Env, *activities.Activities) {
	t.Helper()
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	acts, err := instant.New()
	require.NoError(t, err)
	if adjust != nil {
		adjust(acts)
	}
	workerapp.Attach(acts, e.Client.Temporal, e.TaskQueue)
	w := worker.New(e.Client.Temporal, e.TaskQueue, worker.Options{Interceptors: e.Interceptors})
	require.NoError(t, workerapp.Register(w, acts))
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return e, acts
}

// slowDeployer takes its time over a deploy, as a rollout does.
type slowDeployer struct {
	deploy.Deployer
	wait time.Duration
}

func (d slowDeployer) Deploy(ctx context.Context, a deploy.App, deadline time.Time) (contract.AppStatus, error) {
	time.Sleep(d.wait)
	return d.Deployer.Deploy(ctx, a, deadline)
}

// slowDeploys makes the instant deployer take wait over each deploy.
func slowDeploys(wait time.Duration) func(*activities.Activities) {
	return func(a *activities.Activities) { a.Deployer = slowDeployer{a.Deployer, wait} }
}
