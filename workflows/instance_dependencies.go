package workflows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// Instance dependencies (schema.dependencies). The dependent waits at an instance:T/N gate per
// dependency (added by its config's validation) and records the dependencies in the search
// attribute InstanceDependencies, by which the dependency finds the users its changed outputs go
// to. The gate's watch is the dependent's registration: the dependency clears it only while it is
// not torn down, and from then holds the dependent in its state (Dependents) and refuses a destroy
// or deprovision while it does. Both are decided in the dependency's workflow, one after the
// other, so a teardown and a dependent's deploy never both go through; the dependent leaves
// (dependent-gone) when its run closes (deprovisioned, or emptied) or it stops naming the dependency.
const (
	notifyDependentsTimeout = 5 * time.Minute
	maxTargetFailure        = 1024
	maxStale                = 16
)

// TargetFailure is what SignalGateTargetFailed carries: which gate, and the target's failure.
type TargetFailure struct {
	Workflow string `json:"workflow"`
	Gate     string `json:"gate"`
	Error    string `json:"error"`
}

// keywordList sets k to v, or unsets it when v is empty; runs from before it never set one.
// releaseList is InstanceRelease's value: the release, or nothing (unset) for main's head.
func releaseList(release string) []string {
	if release == "" {
		return nil
	}
	return []string{release}
}

func (u *saUpdates) keywordList(k temporal.SearchAttributeKeyKeywordList, v []string) {
	set := len(v) > 0
	if u.lean {
		if old, had := u.cur.GetKeywordList(k); had == set && slices.Equal(old, v) {
			return
		}
	} else if !set {
		return
	}
	if set {
		u.updates = append(u.updates, k.ValueSet(v))
	} else {
		u.updates = append(u.updates, k.ValueUnset())
	}
}

// recordDependencies keeps the dependencies a provision's or deploy's config names, and leaves
// those it no longer names.
func (e *entity) recordDependencies(ctx workflow.Context, kind lifecycle.Operation, valid contract.ValidateOutput) {
	if kind == lifecycle.OpPlan || (len(valid.Dependencies) == 0 && len(e.s.Dependencies) == 0) || !tracksDependencies(ctx) {
		return
	}
	var dropped []string
	for _, d := range e.s.Dependencies {
		if !slices.Contains(valid.Dependencies, d) {
			dropped = append(dropped, d)
		}
	}
	e.s.Dependencies = valid.Dependencies
	e.upsertSearchAttributes(ctx)
	e.leaveDependencies(ctx, dropped)
}

// leaveDependencies tells each of targets that this instance no longer depends on it.
func (e *entity) leaveDependencies(ctx workflow.Context, targets []string) {
	if len(targets) == 0 || !registersDependents(ctx) {
		return
	}
	gone := contract.DependentGone{Dependent: e.s.Ref.String()}
	for _, t := range targets {
		// One that has closed holds nothing of this instance any more.
		_ = workflow.SignalExternalWorkflow(ctx, instanceWorkflowOf(t), "", contract.SignalDependentGone, gone).Get(ctx, nil)
	}
}

func instanceWorkflowOf(target string) string {
	tenant, name, _ := strings.Cut(target, "/")
	return contract.InstanceWorkflowID(contract.Ref{Tenant: tenant, Name: name})
}

// tearsDown reports whether op removes what a dependent uses: its target's outputs and infrastructure.
func tearsDown(op lifecycle.Operation) bool {
	return op == lifecycle.OpDestroy || op == lifecycle.OpDeprovision
}

// tearingDown reports whether a destroy or deprovision was accepted (and is running, failed or
// done): no dependent is taken on meanwhile.
func (e *entity) tearingDown() bool {
	switch e.s.State {
	case lifecycle.Destroying, lifecycle.DestroyFailed, lifecycle.Destroyed,
		lifecycle.Deprovisioning, lifecycle.DeprovisioningFailed, lifecycle.Deprovisioned:
		return true
	}
	return e.teardown
}

// admitTeardown refuses a destroy or deprovision while dependents are registered: their next
// render could not read its outputs, nor their gate clear.
func (e *entity) admitTeardown(op lifecycle.Operation) error {
	if !tearsDown(op) || len(e.s.Dependents) == 0 {
		return nil
	}
	return notAllowed("%s: %s refused: instance(s) %s depend on it (schema.dependencies; it holds them as its dependents); deprovision them, or point them elsewhere, first",
		e.s.Ref, op, strings.Join(e.s.Dependents, ", "))
}

// addDependent registers the dependent whose gate this instance clears.
func (e *entity) addDependent(w contract.ReadyWatch) {
	d := strings.TrimPrefix(w.Workflow, "instance/") // contract.InstanceWorkflowID
	if !slices.Contains(e.s.Dependents, d) {
		e.s.Dependents = append(e.s.Dependents, d)
		slices.Sort(e.s.Dependents)
	}
}

// dependentGone forgets a dependent that left.
func (e *entity) dependentGone(g contract.DependentGone) {
	// A copy: a status handed out earlier may share the slice.
	e.s.Dependents = slices.DeleteFunc(slices.Clone(e.s.Dependents), func(d string) bool { return d == g.Dependent })
}

// refuseDependent tells a dependency watcher that this instance is torn down. The watch is kept:
// should the instance be provisioned again, its Ready clears the gate then.
func (e *entity) refuseDependent(ctx workflow.Context, w contract.ReadyWatch) {
	if !slices.Contains(e.s.ReadyWatchers, w) {
		e.s.ReadyWatchers = append(e.s.ReadyWatchers, w)
	}
	msg := fmt.Sprintf("%s is being torn down (a destroy or deprovision was accepted; it is %s): it takes no new dependent", e.s.Ref, e.s.State)
	f := TargetFailure{Workflow: contract.InstanceWorkflowID(e.s.Ref), Gate: w.Gate, Error: msg}
	_ = workflow.SignalExternalWorkflow(ctx, w.Workflow, "", contract.SignalGateTargetFailed, f).Get(ctx, nil)
}

// notifyDependents has the instances consuming this one's outputs plan or deploy them, once a
// deploy changed them. The activity compares each dependent's committed values, so it is idempotent.
// An instance that knows it has no dependent skips it: one whose gate has not cleared yet reads
// the outputs when it does.
func (e *entity) notifyDependents(ctx workflow.Context, op *contract.Operation, before map[string]string) {
	if op.Kind != lifecycle.OpDeploy || sameOutputs(before, e.s.Outputs) || !tracksDependencies(ctx) ||
		e.s.DependentsKnown && len(e.s.Dependents) == 0 {
		return
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: notifyDependentsTimeout, ScheduleToCloseTimeout: 2 * notifyDependentsTimeout, RetryPolicy: retryPolicy(),
	})
	var out contract.NotifyDependentsOutput
	in := contract.NotifyDependentsInput{Ref: e.s.Ref, Outputs: e.s.Outputs, OnBehalfOf: onBehalfOf(op.Requester)}
	if err := workflow.ExecuteActivity(actx, contract.ActNotifyDependents, in).Get(ctx, &out); err != nil {
		workflow.GetLogger(ctx).Warn("dependents not told of changed outputs", "instance", e.s.Ref.String(), "error", err)
		// Retried until its deadline: those it could not reach keep the old values, and say so.
		stale := e.s.Dependents
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.Type() == contract.ErrDependentsBusy && app.HasDetails() {
			var busy []string
			if app.Details(&busy) == nil && len(busy) > 0 {
				stale = busy
			}
		}
		e.markStale(ctx, stale, errorMessage(err))
		return
	}
	if len(out.Sent) > 0 || len(out.Refused) > 0 {
		workflow.GetLogger(ctx).Info("dependents told of changed outputs", "instance", e.s.Ref.String(), "sent", out.Sent, "refused", out.Refused)
	}
	if len(out.Stale) > 0 {
		e.markStale(ctx, out.Stale, "refused: "+strings.Join(out.Refused, "; "))
	}
}

// markStale marks dependents DependencyStale (a signal each) and starts one notification.
func (e *entity) markStale(ctx workflow.Context, dependents []string, why string) {
	if !registersDependents(ctx) {
		return
	}
	if len(why) > maxTargetFailure {
		why = why[:maxTargetFailure] + " …"
	}
	mark := contract.DependencyStale{Dependency: e.s.Ref.String(), Error: why, At: workflow.Now(ctx)}
	for _, d := range dependents {
		// A dependent that has closed meanwhile uses nothing any more.
		_ = workflow.SignalExternalWorkflow(ctx, instanceWorkflowOf(d), "", contract.SignalDependencyStale, mark).Get(ctx, nil)
	}
	names := "its dependents"
	if len(dependents) > 0 {
		names = strings.Join(dependents, ", ")
	}
	e.notify(ctx, notify.KindDependencyStale, fmt.Sprintf("outputs of %s changed but could not be passed on to %s: they keep the old values until they deploy (%s)",
		e.s.Ref, names, why), func(ev *notify.Event) { ev.Revision = e.s.DeployedRevision })
}

// dependencyStale keeps a dependency's mark (the latest per dependency), shown as DependencyStale.
func (e *entity) dependencyStale(ctx workflow.Context, m contract.DependencyStale) {
	e.s.Stale = slices.DeleteFunc(slices.Clone(e.s.Stale), func(o contract.DependencyStale) bool { return o.Dependency == m.Dependency })
	e.s.Stale = append(e.s.Stale, m)
	if len(e.s.Stale) > maxStale {
		e.s.Stale = e.s.Stale[len(e.s.Stale)-maxStale:]
	}
	e.showDetails(ctx)
}

// freshDependencies drops the marks a provision or deploy that started after them has made good:
// its render read the dependencies' outputs as they are now.
func (e *entity) freshDependencies(op *contract.Operation) {
	if op.Kind != lifecycle.OpProvision && op.Kind != lifecycle.OpDeploy {
		return
	}
	e.s.Stale = slices.DeleteFunc(slices.Clone(e.s.Stale), func(m contract.DependencyStale) bool { return m.At.Before(op.StartedAt) })
}

// staleCondition is DependencyStale=True while a mark stands; nil when none does.
func (e *entity) staleCondition() *lifecycle.Condition {
	if len(e.s.Stale) == 0 {
		return nil
	}
	var msgs []string
	for _, m := range e.s.Stale {
		msgs = append(msgs, fmt.Sprintf("outputs of %s changed at %s and were not passed on: %s", m.Dependency, stamp(m.At), m.Error))
	}
	c := cond(contract.CondDependencyStale, lifecycle.ConditionTrue, "OutputsNotPassedOn", strings.Join(msgs, "; ")+"; deploy it to take them")
	c.ObservedAt = e.s.Stale[len(e.s.Stale)-1].At
	return &c
}

// tellWatchersFailed tells the instances gated on this one that it failed, so their Scheduled
// condition says so now rather than at their gate's timeout. They keep waiting for its Ready.
func (e *entity) tellWatchersFailed(ctx workflow.Context, op *contract.Operation) {
	if len(e.s.ReadyWatchers) == 0 || !tracksDependencies(ctx) {
		return
	}
	for _, w := range e.s.ReadyWatchers {
		e.tellWatcherFailed(ctx, w, op)
	}
}

func (e *entity) tellWatcherFailed(ctx workflow.Context, w contract.ReadyWatch, op *contract.Operation) {
	msg := fmt.Sprintf("%s is %s", e.s.Ref, e.s.State)
	if op != nil && op.Failure != nil {
		msg += fmt.Sprintf(": %s failed at step %s: %s", op.Kind, op.Failure.Step, op.Failure.Error)
	}
	if len(msg) > maxTargetFailure {
		msg = msg[:maxTargetFailure] + " …" // the watcher keeps it on its gate and in its gate log
	}
	f := TargetFailure{Workflow: contract.InstanceWorkflowID(e.s.Ref), Gate: w.Gate, Error: msg}
	// A watcher that has closed meanwhile has nothing left to wait for.
	_ = workflow.SignalExternalWorkflow(ctx, w.Workflow, "", contract.SignalGateTargetFailed, f).Get(ctx, nil)
}

// targetFailed notes a gate's failed target on the gate, which Scheduled reports.
func (e *entity) targetFailed(ctx workflow.Context, f TargetFailure) {
	i := e.gate(f.Gate)
	if i < 0 {
		return
	}
	e.s.Gates[i].Failed = f.Error
	e.logGate(ctx, f.Gate, "target-failed", f.Workflow, f.Error)
	e.gatesChanged++
	e.showDetails(ctx)
}

// failedTargets are the messages of the gates whose target failed.
func (e *entity) failedTargets() []string {
	var out []string
	for _, g := range e.s.Gates {
		if g.Failed != "" {
			out = append(out, g.Name+": "+g.Failed)
		}
	}
	return out
}

// sameOutputs compares in sorted order: the result does not depend on the maps' order.
func sameOutputs(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, k := range contract.SortedKeys(a) {
		if v, ok := b[k]; !ok || v != a[k] {
			return false
		}
	}
	return true
}
