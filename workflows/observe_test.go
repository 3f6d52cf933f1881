package workflows_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/observe"
	"github.com/slipway-dev/slipway/workflows"
)

const observerID = "observer/slipway/argocd-0123456789"

func argoApp(health string) contract.AppStatus {
	return contract.AppStatus{Deployer: "argocd", Deployed: true, Sync: "Synced", Health: health, Observer: observerID,
		Resources: []contract.Resource{
			{App: "web", Cluster: "in-cluster", Version: "v1", Kind: "ConfigMap", Namespace: "acme-web", Name: "app", RsyncStatus: "Applied", ClusterStatus: "Present"},
		}}
}

func gone() contract.AppStatus {
	return contract.AppStatus{Deployer: "argocd", Observer: observerID}
}

// signal sends an observation the way the observer's activity does.
func (w *world) signal(app contract.AppStatus, stale bool) {
	obs := contract.Observation{App: app, Fingerprint: observe.Fingerprint(app), At: w.env.Now(), Observer: observerID,
		Interval: 30 * time.Second, Stale: stale}
	if stale {
		obs.App, obs.Fingerprint = contract.AppStatus{}, observe.FingerprintStale
	}
	w.env.SignalWorkflow(contract.SignalObserved, obs)
}

func refresh() *request { return &request{name: contract.UpdateRefresh} }

func cond(st contract.Status, typ string) lifecycle.Condition {
	for _, c := range st.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return lifecycle.Condition{}
}

func TestObservationsKeepRunningAndReadyTrue(t *testing.T) {
	w := newWorld(t)
	healthy := argoApp("Healthy")
	w.deployed, w.live = &healthy, healthy
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	quiet, missing, back := refresh(), refresh(), refresh()
	deploy.arm = func() { w.signal(healthy, false) }
	quiet.arm = func() { w.live = gone(); w.signal(gone(), false) }
	redeploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	missing.arm = func() { w.live = healthy }
	w.run(contract.Settings{}, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}),
		deploy, quiet, missing, redeploy, back)
	for _, r := range []*request{deploy, quiet, missing, redeploy, back} {
		require.NoError(t, r.err, r.name)
	}

	// The deploy recorded what it saw; an unchanged observation is no event.
	require.Equal(t, "True", string(cond(quiet.status, lifecycle.CondReady).Status))
	require.Empty(t, quiet.status.Observations)
	require.Contains(t, quiet.status.Refresh, "observed True/Healthy")
	require.Equal(t, observe.Fingerprint(healthy), quiet.status.Observed.Fingerprint)

	// The Application deleted out of band: Running False (Missing), Ready False, NotPresent.
	running := cond(missing.status, lifecycle.CondRunning)
	require.Equal(t, lifecycle.ConditionFalse, running.Status)
	require.Equal(t, observe.ReasonMissing, running.Reason)
	require.False(t, running.ObservedAt.IsZero())
	require.Equal(t, lifecycle.ConditionFalse, cond(missing.status, lifecycle.CondReady).Status)
	require.Equal(t, lifecycle.ConditionTrue, cond(missing.status, lifecycle.CondProgrammed).Status, "terraform's part still holds")
	require.Equal(t, "missing", missing.status.Observed.Fingerprint)
	require.Equal(t, lifecycle.Deployed, missing.status.State, "observation never changes the lifecycle state")
	all := w.status(contract.OutputAll)
	require.Len(t, all.Observations, 1, "one change seen; the redeploy is an operation, not an observation")
	require.Equal(t, "True/Healthy", all.Observations[0].FromRunning)
	require.Equal(t, "False", all.Observations[0].ToReady)

	// A deploy makes it Ready again; the observer's view comes back with it.
	require.Equal(t, lifecycle.Deployed, redeploy.result.State)
	require.Equal(t, "True", string(cond(back.status, lifecycle.CondReady).Status))
	require.Equal(t, 3, w.called(contract.ActObserveApp), "one read per refresh")
}

func TestStaleObservationIsNeverReady(t *testing.T) {
	w := newWorld(t)
	healthy := argoApp("Healthy")
	w.deployed = &healthy
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deploy.arm = func() { w.signal(contract.AppStatus{}, true) }
	w.run(contract.Settings{}, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}), deploy)
	st := w.status(contract.OutputSummary)
	require.Equal(t, observe.ReasonStale, cond(st, lifecycle.CondRunning).Reason)
	require.Equal(t, lifecycle.ConditionUnknown, cond(st, lifecycle.CondReady).Status, "never Ready from memory")
	require.Equal(t, observe.FingerprintStale, st.Observed.Fingerprint)
}

func TestAnOperationOwnsTheConditionsUntilItEnds(t *testing.T) {
	w := newWorld(t)
	healthy := argoApp("Healthy")
	w.deployed, w.live = &healthy, healthy
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deploy.accept = func() { w.signal(gone(), false) } // arrives while the deploy runs
	w.run(contract.Settings{}, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}), deploy)
	require.NoError(t, deploy.err)
	st := w.status(contract.OutputAll)
	require.Equal(t, lifecycle.ConditionTrue, cond(st, lifecycle.CondReady).Status, "%+v", st.Conditions)
	require.Empty(t, st.Observations)
	require.Equal(t, observe.Fingerprint(healthy), st.Observed.Fingerprint,
		"the recorded fingerprint is the deploy's, so the next sweep sees the change again")
}

func TestDeployerNoneIsNotObserved(t *testing.T) {
	w := newWorld(t)
	r := refresh()
	w.run(contract.Settings{}, append(deployed(), r)...)
	require.NoError(t, r.err)
	require.Contains(t, r.status.Refresh, "deployer none")
	st := w.status(contract.OutputSummary)
	require.Nil(t, st.Observed)
	require.Equal(t, "Unknown", string(cond(st, lifecycle.CondRunning).Status))
	require.Equal(t, "NotDeployed", cond(st, lifecycle.CondRunning).Reason)
	require.Zero(t, w.called(contract.ActObserveApp))
}

// sweeps scripts the observer's activity: each call takes the next outcome.
type sweeps struct {
	mu       sync.Mutex
	env      *testsuite.TestWorkflowEnvironment
	outcomes []error
	inputs   []contract.ObserveAppsInput
	times    []time.Time
}

func (s *sweeps) call(_ context.Context, in contract.ObserveAppsInput) (contract.ObserveAppsOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, in)
	s.times = append(s.times, s.env.Now())
	if in.MarkStale {
		return contract.ObserveAppsOutput{At: s.env.Now(), Instances: 3, Signalled: 3}, nil
	}
	var err error
	if len(s.outcomes) > 0 {
		err, s.outcomes = s.outcomes[0], s.outcomes[1:]
	}
	if err != nil {
		return contract.ObserveAppsOutput{}, err
	}
	return contract.ObserveAppsOutput{At: s.env.Now(), Apps: 3, Instances: 3, Signalled: 1}, nil
}

// observerEnv is a test environment running the observer over scripted sweeps.
func observerEnv(outcomes ...error) (*testsuite.TestWorkflowEnvironment, *sweeps) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.RegisterWorkflowWithOptions(workflows.DeployerObserverWorkflow, workflow.RegisterOptions{Name: contract.ObserverWorkflowName})
	env.RegisterActivity(&activities.Activities{})
	s := &sweeps{env: env, outcomes: outcomes}
	env.OnActivity(contract.ActObserveApps, mock.Anything, mock.Anything).Return(s.call)
	return env, s
}

func TestObserverMarksInstancesStaleOnceWhenTheDeployerIsUnreachable(t *testing.T) {
	down := temporal.NewNonRetryableApplicationError("argocd: list applications: connection refused", "Unreachable", nil)
	env, s := observerEnv(nil, down, down, down, down, down, nil)
	env.ExecuteWorkflow(contract.ObserverWorkflowName, workflows.ObserverInput{Interval: 10 * time.Second})

	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "a long-lived observer continues as new: %v", env.GetWorkflowError())
	var marks []int
	for i, in := range s.inputs {
		require.Equal(t, 10*time.Second, in.Interval)
		if in.MarkStale {
			marks = append(marks, i)
		}
	}
	// Sweep 0 succeeds; 1-5 fail. Failure 4 (40 s after the last good sweep) is past 3 intervals.
	require.Equal(t, []int{5}, marks, "stale is marked once per outage, right after the sweep that crossed 3 intervals")
	require.False(t, s.inputs[5].LastSeen.IsZero(), "the stale mark says when the app was last seen")
	require.Equal(t, 10*time.Second, s.times[1].Sub(s.times[0]), "one sweep per interval")
	require.Greater(t, len(s.inputs), 200, "sweeps go on after the outage")
}

func TestObserverTakesANewIntervalFromAStartingWorker(t *testing.T) {
	env, s := observerEnv()
	env.RegisterDelayedCallback(func() {
		env.SignalWorkflow(contract.SignalObserverConfig, contract.ObserverConfig{Interval: time.Minute})
	}, 95*time.Second)
	env.ExecuteWorkflow(contract.ObserverWorkflowName, workflows.ObserverInput{Interval: 30 * time.Second})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can))
	last := s.inputs[len(s.inputs)-1]
	require.Equal(t, time.Minute, last.Interval)
	require.Equal(t, time.Minute, s.times[len(s.times)-1].Sub(s.times[len(s.times)-2]))
	require.Equal(t, 30*time.Second, s.times[1].Sub(s.times[0]))
}

func TestCurrentDetailsFollowTheInstance(t *testing.T) {
	w := newWorld(t)
	healthy := argoApp("Healthy")
	w.deployed = &healthy
	var during string
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deploy.accept = func() {
		w.env.RegisterDelayedCallback(func() { during = w.details() }, 0)
	}
	w.run(contract.Settings{}, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}), deploy)
	require.Regexp(t, `^Deploying: deploy 2-\w* (starting|at step [\w-]+) \(attempt 1\)$`, during)
	require.Regexp(t, `^Deployed; Ready True \(ProgrammedAndRunning\) as of 20\d\d-`, w.details())
}

// details reads the instance's current details the way the Temporal UI does.
func (w *world) details() string {
	v, err := w.env.QueryWorkflow("__temporal_workflow_metadata")
	require.NoError(w.t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(w.t, v.Get(&md))
	return md.GetCurrentDetails()
}
