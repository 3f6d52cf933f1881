package workflows_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// sent is a signal the instance sent another workflow.
type sent struct {
	workflow, signal string
	arg              any
}

// dependents records the signals and notifications of an instance that others depend on.
type dependents struct {
	mu      sync.Mutex
	signals []sent
	events  []notify.Event
}

func watchDependents(w *world) *dependents {
	d := &dependents{}
	w.env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).Return(
		func(_, workflowID, _, signal string, arg any) error {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.signals = append(d.signals, sent{workflowID, signal, arg})
			return nil
		})
	w.env.OnActivity(contract.ActMatchSinks, mock.Anything, mock.Anything).Return(
		func(_ context.Context, ev notify.Event) ([]string, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.events = append(d.events, ev)
			return nil, nil
		})
	return d
}

// to are the signals sent to workflowID, by name.
func (d *dependents) to(workflowID string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, s := range d.signals {
		if s.workflow == workflowID {
			out = append(out, s.signal)
		}
	}
	return out
}

const subnetWorkflow = "instance/acme/subnet"

// subnetWatch is what acme/subnet's gate on this instance (its schema.dependencies) sends.
var subnetWatch = contract.ReadyWatch{Workflow: subnetWorkflow, Gate: "instance:acme/web", Dependency: true}

// readyInstance is a provision and a deploy after which the instance is Ready, and a refresh
// that runs then with arm.
func readyInstance(w *world, arm func()) []*request {
	healthy := argoApp("Healthy")
	w.deployed, w.live = &healthy, healthy
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deploy.arm = func() { w.signal(healthy, false) }
	r := refresh()
	r.arm = arm
	return []*request{op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}), deploy, r}
}

// A dependent registered first: the teardown is refused, naming it, until it leaves.
func TestTeardownIsRefusedWhileADependentIsRegistered(t *testing.T) {
	w := newWorld(t)
	d := watchDependents(w)
	reqs := readyInstance(w, func() { w.env.SignalWorkflow(contract.SignalWatchReady, subnetWatch) })
	reqs = append(reqs, refresh()) // the signal is in
	refused := op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true})
	destroy := op(lifecycle.OpDestroy, contract.OperationRequest{})
	destroy.arm = func() {
		w.env.SignalWorkflow(contract.SignalDependentGone, contract.DependentGone{Dependent: "acme/subnet"})
	}
	deprovision := op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true})
	w.run(contract.Settings{}, append(reqs, refused, destroy, deprovision)...)

	require.Equal(t, "True", string(cond(reqs[2].status, lifecycle.CondReady).Status))
	require.Equal(t, []string{contract.SignalGateCleared}, d.to(subnetWorkflow), "the Ready instance clears the dependent's gate")
	require.Equal(t, []string{"acme/subnet"}, reqs[3].status.Dependents, "it holds its dependent")
	requireRejected(t, refused.err, "acme/web: deprovision refused: instance(s) acme/subnet depend on it")
	requireRejected(t, destroy.err, "acme/web: destroy refused: instance(s) acme/subnet depend on it")
	require.NoError(t, deprovision.err, "once the dependent left")
	require.Equal(t, lifecycle.Deprovisioned, deprovision.result.State)
}

// A teardown accepted first: the dependent's registration is refused (its gate hears why and
// stays), though the instance is still Ready while it is torn down.
func TestDependentIsNotTakenOnDuringATeardown(t *testing.T) {
	w := newWorld(t)
	d := watchDependents(w)
	reqs := readyInstance(w, nil)
	deprovision := op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true})
	// The dependent's watch comes while the app is being removed, steps before the teardown ends.
	w.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if info.ActivityType.Name == contract.ActRemoveApp {
			w.env.SignalWorkflow(contract.SignalWatchReady, subnetWatch)
		}
	})
	w.run(contract.Settings{}, append(reqs, deprovision)...)

	require.Equal(t, "True", string(cond(reqs[2].status, lifecycle.CondReady).Status))
	require.NoError(t, deprovision.err)
	require.Equal(t, lifecycle.Deprovisioned, deprovision.result.State)
	require.Equal(t, []string{contract.SignalGateTargetFailed}, d.to(subnetWorkflow), "the gate is never cleared")
}

// Changed outputs that cannot be passed on (the dependent stays busy past the retries) mark the
// dependent DependencyStale and start one notification.
func TestFailedCascadeMarksTheDependentStale(t *testing.T) {
	w := newWorld(t)
	d := watchDependents(w)
	tries := 0
	w.env.OnActivity(contract.ActNotifyDependents, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.NotifyDependentsInput) (contract.NotifyDependentsOutput, error) {
			tries++
			return contract.NotifyDependentsOutput{}, temporal.NewApplicationError("dependents busy, asked again: acme/subnet",
				contract.ErrDependentsBusy, []string{"acme/subnet"})
		})
	reqs := readyInstance(w, func() {
		w.env.SignalWorkflow(contract.SignalWatchReady, subnetWatch)
		w.applyOutputs = map[string]string{"cidr": "10.1.0.0/16"}
	})
	reqs = append(reqs, refresh()) // the signal is in
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	w.run(contract.Settings{}, append(reqs, deploy)...)

	require.NoError(t, deploy.err)
	require.Equal(t, contract.ResultSucceeded, deploy.result.Result, "the deploy itself succeeded")
	require.Greater(t, tries, 1, "the cascade is retried")
	require.Equal(t, []string{contract.SignalGateCleared, contract.SignalDependencyStale}, d.to(subnetWorkflow))
	var stale []notify.Event
	for _, ev := range d.events {
		if ev.Kind == notify.KindDependencyStale {
			stale = append(stale, ev)
		}
	}
	require.Len(t, stale, 1)
	require.Contains(t, stale[0].Message, "outputs of acme/web changed but could not be passed on to acme/subnet")
}

// An instance that knows its dependents (created at verified-requests 6) tells nobody of changed
// outputs while it has none, and its registered dependent once it has one.
func TestChangedOutputsAreToldOnlyToRegisteredDependents(t *testing.T) {
	w := newWorld(t)
	watchDependents(w)
	w.state = &contract.InstanceState{Ref: ref, State: lifecycle.NoConfiguration, DependentsKnown: true}
	var told []contract.NotifyDependentsInput
	w.env.OnActivity(contract.ActNotifyDependents, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.NotifyDependentsInput) (contract.NotifyDependentsOutput, error) {
			told = append(told, in)
			return contract.NotifyDependentsOutput{}, nil
		})
	w.applyOutputs = map[string]string{"cidr": "10.0.0.0/16"} // the first deploy changes the outputs: no dependent yet
	reqs := readyInstance(w, func() {
		w.env.SignalWorkflow(contract.SignalWatchReady, subnetWatch)
		w.applyOutputs = map[string]string{"cidr": "10.1.0.0/16"}
	})
	reqs = append(reqs, refresh()) // the signal is in
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	w.run(contract.Settings{}, append(reqs, deploy)...)

	require.NoError(t, deploy.err)
	require.Equal(t, []string{"acme/subnet"}, reqs[3].status.Dependents)
	require.Len(t, told, 1, "only the deploy after acme/subnet registered tells anyone")
	require.Equal(t, map[string]string{"cidr": "10.1.0.0/16"}, told[0].Outputs)
}

// A dependent marked stale shows DependencyStale=True until a deploy reads the outputs again.
func TestStaleMarkShowsUntilTheNextDeploy(t *testing.T) {
	w := newWorld(t)
	deployed := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deployed.arm = func() {
		w.env.SignalWorkflow(contract.SignalDependencyStale, contract.DependencyStale{Dependency: "acme/net",
			Error: "dependents busy, asked again: acme/web", At: w.env.Now()})
	}
	marked, after := refresh(), refresh()
	w.run(contract.Settings{}, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}), deployed, marked,
		op(lifecycle.OpDeploy, contract.OperationRequest{}), after)

	c := cond(marked.status, contract.CondDependencyStale)
	require.Equal(t, lifecycle.ConditionTrue, c.Status)
	require.Contains(t, c.Message, "outputs of acme/net changed at")
	require.Contains(t, c.Message, "dependents busy, asked again: acme/web")
	require.Empty(t, cond(after.status, contract.CondDependencyStale).Status, "the deploy took the outputs as they are")
}

// A dependent leaves a dependency its config stops naming, and all of them once deprovisioned.
func TestDependentLeavesItsDependencies(t *testing.T) {
	w := newWorld(t)
	d := watchDependents(w)
	w.dependsOn = []string{"acme/net", "acme/dns"}
	provision := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML})
	provision.arm = func() { w.dependsOn = []string{"acme/dns"} }
	w.run(contract.Settings{}, provision, op(lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: webYAML}),
		op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true}))

	require.Equal(t, []string{contract.SignalDependentGone}, d.to("instance/acme/net"), "the deploy that dropped it")
	require.Equal(t, []string{contract.SignalDependentGone}, d.to("instance/acme/dns"), "the deprovision")
	for _, s := range d.signals {
		require.Equal(t, contract.DependentGone{Dependent: "acme/web"}, s.arg)
	}
}
