package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

const (
	fairFleetA = 200 // tenant A's rollout
	fairFleetC = 20  // tenant C's rollout, started with A's
	// fairSlots and fairDeploy make the worker the bottleneck: at most fairSlots/fairDeploy deploys
	// a second, below what the dev server can drive, so the rollouts' work queues at the server.
	fairSlots  = 2
	fairDeploy = 300 * time.Millisecond
)

// gatedDeploy takes fairDeploy over a deploy once the fleet is set up, as a real deploy takes its time.
type gatedDeploy struct {
	deploy.Deployer
	on *atomic.Bool
}

func (d gatedDeploy) Deploy(ctx context.Context, a deploy.App, deadline time.Time) (contract.AppStatus, error) {
	if d.on.Load() {
		time.Sleep(fairDeploy)
	}
	return d.Deployer.Deploy(ctx, a, deadline)
}

// dispatches counts, once on is set, the activities the worker ran by their priority and fairness
// keys as the server handed them over: the share of the worker each tenant got, at what priority.
type dispatches struct {
	interceptor.WorkerInterceptorBase
	on *atomic.Bool
	mu sync.Mutex
	n  map[string]int // "PRIORITY TENANT" -> activities run
	// first is when tenant-b's first step started, as its worker began it.
	first time.Time
}

func (d *dispatches) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &countActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, d: d}
}

func (d *dispatches) get(priority int, tenant string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n[fmt.Sprint(priority, " ", tenant)]
}

type countActivity struct {
	interceptor.ActivityInboundInterceptorBase
	d *dispatches
}

func (c *countActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	// Local activities run in their workflow's task: the server's matcher never sees them.
	if c.d.on.Load() && !activity.GetInfo(ctx).IsLocalActivity {
		p := activity.GetInfo(ctx).Priority
		c.d.mu.Lock()
		c.d.n[fmt.Sprint(p.PriorityKey, " ", p.FairnessKey)]++
		if p.FairnessKey == "tenant-b" && c.d.first.IsZero() {
			c.d.first = time.Now()
		}
		c.d.mu.Unlock()
	}
	return c.Next.ExecuteActivity(ctx, in)
}

// slipway's own pipelines on the real dev server, on a worker with fairSlots activity slots: two
// tenants' rollouts (A's 200, C's 20) started together share the worker by turns, so C's finish
// while A's has most still queued; then a person's deploy of one instance of tenant B, sent while
// A's rollout still queues, runs ahead of it and ends within seconds.
func TestRolloutsShareTheWorkerAndAPersonGoesFirst(t *testing.T) {
	wall := time.Now()
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	acts, err := instant.New()
	require.NoError(t, err)
	slow := &atomic.Bool{}
	acts.Deployer = gatedDeploy{acts.Deployer, slow}
	ran := &dispatches{on: slow, n: map[string]int{}}
	workerapp.Attach(acts, e.Client.Temporal, e.TaskQueue)
	w := worker.New(e.Client.Temporal, e.TaskQueue, worker.Options{Interceptors: append(e.Interceptors, ran),
		MaxConcurrentActivityExecutionSize: fairSlots})
	require.NoError(t, workerapp.Register(w, acts))
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	ctx := context.Background()

	// The fleet: provisioned and deployed on the instant adapters, fast.
	submit := func(ref contract.Ref, op lifecycle.Operation, config string) {
		h, err := e.Client.Submit(ctx, ref, op, contract.OperationRequest{ConfigYAML: config}, "")
		require.NoError(t, err, "%s %s", op, ref)
		res, err := h.Get(ctx)
		require.NoError(t, err, "%s %s", op, ref)
		require.Equal(t, contract.ResultSucceeded, res.Result, "%s %s: %+v", op, ref, res.Failure)
	}
	cfg := "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n"
	refs := []contract.Ref{{Tenant: "tenant-b", Name: "urgent"}}
	for i := range fairFleetA {
		refs = append(refs, contract.Ref{Tenant: "tenant-a", Name: fmt.Sprintf("web-%d", i)})
	}
	for i := range fairFleetC {
		refs = append(refs, contract.Ref{Tenant: "tenant-c", Name: fmt.Sprintf("web-%d", i)})
	}
	setup := time.Now()
	forEach(t, len(refs), 32, func(i int) {
		submit(refs[i], lifecycle.OpProvision, cfg)
		submit(refs[i], lifecycle.OpDeploy, "")
	})
	t.Logf("fleet of %d provisioned and deployed in %s", len(refs), time.Since(setup).Round(time.Millisecond))
	slow.Store(true)

	// (b) Two rollouts started together: A's first, so first in, first out would run all of A's first.
	spec := func(tenant string) contract.RolloutSpec {
		return contract.RolloutSpec{ID: tenant, Stack: "example", Tenant: tenant, BatchPercent: 100,
			Set: []contract.Setting{{Key: "replicas", Value: "2"}}, MaxFailures: 1, Actor: "fairshare"}
	}
	started := time.Now()
	require.NoError(t, e.Client.StartRollout(ctx, spec("tenant-a")))
	require.NoError(t, e.Client.StartRollout(ctx, spec("tenant-c")))
	updated := func(id string) int {
		st, err := e.Client.RolloutStatus(ctx, id)
		require.NoError(t, err, id)
		return st.Updated
	}
	var aDone, aRan, cRan int
	require.Eventually(t, func() bool {
		c := updated("tenant-c")
		aDone, aRan, cRan = updated("tenant-a"), ran.get(contract.PriorityRollout, "tenant-a"), ran.get(contract.PriorityRollout, "tenant-c")
		return c == fairFleetC
	}, 3*time.Minute, 100*time.Millisecond, "tenant C's rollout ends")
	t.Logf("tenant C's %d deploys done in %s; by then the worker had run %d of tenant A's rollout activities and %d of C's, and %d of A's %d deploys had finished",
		fairFleetC, time.Since(started).Round(time.Millisecond), aRan, cRan, aDone, fairFleetA)
	// Fair shares: while both queue at the rollout's priority, each tenant gets every other
	// dispatch, so A's rollout has run as many activities as C's when C's ends: within 25% either
	// way. A's 200 pipelines advance together, so none of them has finished yet. First in, first out
	// would share the worker 200 to 20 by pipeline, and C's would end with A's.
	require.Positive(t, cRan, "tenant C's pipelines run at the rollout's priority with the tenant as fairness key")
	assert.InEpsilon(t, cRan, aRan, 0.25, "tenant A's rollout activities run while tenant C's %d ran", cRan)
	assert.LessOrEqual(t, aDone, fairFleetC, "tenant A's deploys finished when tenant C's %d had", fairFleetC)

	// (a) A person's deploy of tenant B's one instance while A's rollout still queues.
	before := updated("tenant-a")
	require.Less(t, before, fairFleetA/2, "most of tenant A's rollout is still queued")
	asked := time.Now()
	h, err := e.Client.Submit(ctx, refs[0], lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: "stack: example\nparameters:\n  greeting: hello\n  replicas: 3\n"}, "")
	require.NoError(t, err)
	res, err := h.Get(ctx)
	require.NoError(t, err)
	took := time.Since(asked)
	ran.mu.Lock()
	firstStep := ran.first.Sub(asked)
	ran.mu.Unlock()
	require.Equal(t, contract.ResultSucceeded, res.Result, "%+v", res.Failure)
	after := updated("tenant-a")
	t.Logf("tenant B's deploy: its first step started %s and it ended %s after it was asked; tenant A's rollout had %d of %d left when it was asked, %d when it ended (at %.1f deploys/s, first in, first out would have had B wait about %s)",
		firstStep.Round(time.Millisecond), took.Round(time.Millisecond), fairFleetA-before, fairFleetA, fairFleetA-after,
		float64(fairSlots)/fairDeploy.Seconds(), (time.Duration(fairFleetA-before) * fairDeploy / fairSlots).Round(time.Second))
	// Its first step waits for one slot's current step (3 s bounds it on a busy 2-core machine);
	// each of its steps does, so 10 s bounds the whole deploy. A's remaining deploys alone take 30 s.
	assert.Less(t, firstStep, 3*time.Second, "tenant B's first step, ahead of the rollout")
	assert.Less(t, took, 10*time.Second, "tenant B's deploy, ahead of the rollout")
	assert.Greater(t, fairFleetA-after, fairFleetA/4, "tenant A's rollout was still queued when B's deploy ended")
	assert.Positive(t, ran.get(contract.PriorityPerson, "tenant-b"), "tenant B's pipeline runs at a person's priority")
	assert.Zero(t, ran.get(contract.PriorityRollout, "tenant-b"), "no tenant B activity at the rollout's priority")
	ran.mu.Lock()
	t.Logf("activities run by priority and fairness key: %v", ran.n)
	ran.mu.Unlock()
	t.Logf("wall time %s", time.Since(wall).Round(time.Millisecond))
}
