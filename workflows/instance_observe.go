package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/observe"
)

// observationsKept bounds the observed transitions an instance keeps.
const observationsKept = 20

// receiveObservations applies the observer's signals as they come.
func (e *entity) receiveObservations(ctx workflow.Context) {
	for {
		var obs contract.Observation
		if !e.observeChan.Receive(ctx, &obs) {
			return
		}
		e.observed(ctx, obs)
	}
}

func (e *entity) drainObservations(ctx workflow.Context) {
	for {
		var obs contract.Observation
		if !e.observeChan.ReceiveAsync(&obs) {
			return
		}
		e.observed(ctx, obs)
	}
}

// observed folds an observation into the conditions, unless an operation owns them or the
// instance is in a state nobody observes. It reports whether it was applied and, if not, why.
// Observations carry a worker's clock, so they are not ordered against a deploy's end: one made
// just before a deploy ended is put right by the next sweep, which compares with what it recorded.
func (e *entity) observed(ctx workflow.Context, obs contract.Observation) (bool, string) {
	switch {
	case e.busy:
		return false, "an operation is running; it owns the conditions until it ends"
	case !observe.Observed(e.s.State):
		return false, "the instance is " + string(e.s.State) + ": its app is not observed"
	case e.s.Deployer == "" || e.s.Deployer == "none":
		return false, "deployer none: nothing was deployed, nothing to observe"
	case !obs.Stale && obs.App.Deployer != e.s.Deployer:
		return false, "observed through deployer " + obs.App.Deployer + ", but the instance is deployed by " + e.s.Deployer
	}
	before, ready := e.condition(lifecycle.CondRunning), e.condition(lifecycle.CondReady)
	var running lifecycle.Condition
	if obs.Stale {
		last := time.Time{}
		if e.s.Observed != nil {
			last = e.s.Observed.At
		}
		running = observe.StaleRunning(last, obs.At)
	} else {
		running = observe.Running(obs.App, obs.At)
		e.s.Resources = observe.Resources(e.s.Resources, obs.App)
	}
	e.setConditions(e.condition(lifecycle.CondProgrammed), running)
	e.s.Observed = &contract.Observed{At: obs.At, Fingerprint: obs.Fingerprint, Observer: obs.Observer, Interval: obs.Interval}
	if after := e.condition(lifecycle.CondReady); statusReason(before) != statusReason(running) || ready.Status != after.Status {
		e.s.Observations = append(e.s.Observations, contract.ObservedEvent{At: obs.At, Running: running,
			FromRunning: statusReason(before), FromReady: string(ready.Status), ToReady: string(after.Status)})
		if len(e.s.Observations) > observationsKept {
			e.s.Observations = e.s.Observations[len(e.s.Observations)-observationsKept:]
		}
		workflow.GetLogger(ctx).Info("app observed", "instance", e.s.Ref.String(), "running", statusReason(running),
			"ready", after.Status)
	}
	e.upsertSearchAttributes(ctx)
	return true, ""
}

// refresh observes the app now through a read-only activity and returns the status. It never
// takes the operation lock: while an operation runs it reports what it saw and applies nothing.
func (e *entity) refresh(ctx workflow.Context) (contract.Status, error) {
	if e.s.Deployer == "" || e.s.Deployer == "none" {
		st, err := e.status(contract.StatusRequest{})
		st.Refresh = "deployer none: nothing was deployed, nothing to observe"
		return st, err
	}
	var obs contract.Observation
	if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActObserveApp, contract.ObserveAppInput{Ref: e.s.Ref}).Get(ctx, &obs); err != nil {
		return contract.Status{}, err
	}
	if e.s.Observed != nil && obs.Interval == 0 {
		obs.Interval = e.s.Observed.Interval // an observation on request says nothing of the observer's pace
	}
	applied, why := e.observed(ctx, obs)
	st, err := e.status(contract.StatusRequest{})
	st.Refresh = "observed " + statusReason(observe.Running(obs.App, obs.At))
	if !applied {
		st.Refresh += "; not applied: " + why
	}
	return st, err
}

// recordDeployed notes what a deploy saw of its app, so the observer compares against it.
func (e *entity) recordDeployed(app *contract.AppStatus, at time.Time) {
	if app == nil || app.Observer == "" {
		return
	}
	interval := time.Duration(0)
	if e.s.Observed != nil {
		interval = e.s.Observed.Interval
	}
	e.s.Observed = &contract.Observed{At: at, Fingerprint: observe.Fingerprint(*app), Observer: app.Observer, Interval: interval}
}

func statusReason(c lifecycle.Condition) string {
	if c.Reason == "" {
		return string(c.Status)
	}
	return string(c.Status) + "/" + c.Reason
}
