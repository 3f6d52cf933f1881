package workflows

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Instance dependencies (schema.dependencies). The dependent waits at an instance:T/N gate per
// dependency (added by its config's validation) and records the dependencies in the search
// attribute InstanceDependencies. A dependency keeps no list of its users: it finds them by that
// attribute when it must (its outputs changed, a destroy is asked), so a parked instance holds
// nothing per user, however many there are.
const (
	notifyDependentsTimeout = 5 * time.Minute
	maxTargetFailure        = 1024
)

// TargetFailure is what SignalGateTargetFailed carries: which gate, and the target's failure.
type TargetFailure struct {
	Workflow string `json:"workflow"`
	Gate     string `json:"gate"`
	Error    string `json:"error"`
}

// keywordList sets k to v, or unsets it when v is empty; runs from before it never set one.
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

// recordDependencies keeps the dependencies a provision's or deploy's config names.
func (e *entity) recordDependencies(ctx workflow.Context, kind lifecycle.Operation, valid contract.ValidateOutput) {
	if kind == lifecycle.OpPlan || (len(valid.Dependencies) == 0 && len(e.s.Dependencies) == 0) || !tracksDependencies(ctx) {
		return
	}
	e.s.Dependencies = valid.Dependencies
	e.upsertSearchAttributes(ctx)
}

// notifyDependents has the instances consuming this one's outputs plan or deploy them, once a
// deploy changed them. The activity compares each dependent's committed values, so it is idempotent.
func (e *entity) notifyDependents(ctx workflow.Context, op *contract.Operation, before map[string]string) {
	if op.Kind != lifecycle.OpDeploy || sameOutputs(before, e.s.Outputs) || !tracksDependencies(ctx) {
		return
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: notifyDependentsTimeout, ScheduleToCloseTimeout: 2 * notifyDependentsTimeout, RetryPolicy: retryPolicy(),
	})
	var out contract.NotifyDependentsOutput
	in := contract.NotifyDependentsInput{Ref: e.s.Ref, Outputs: e.s.Outputs, OnBehalfOf: onBehalfOf(op.Requester)}
	if err := workflow.ExecuteActivity(actx, contract.ActNotifyDependents, in).Get(ctx, &out); err != nil {
		workflow.GetLogger(ctx).Warn("dependents not told of changed outputs", "instance", e.s.Ref.String(), "error", err)
		return
	}
	if len(out.Sent) > 0 || len(out.Refused) > 0 {
		workflow.GetLogger(ctx).Info("dependents told of changed outputs", "instance", e.s.Ref.String(), "sent", out.Sent, "refused", out.Refused)
	}
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
