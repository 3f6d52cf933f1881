package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/observe"
)

// applySuccess folds a finished operation into the instance: revision, app,
// infrastructure and the Programmed/Running/Ready conditions, stamped with when they held.
func (e *entity) applySuccess(op *contract.Operation) {
	defer e.stampConditions(op.EndedAt)
	e.freshDependencies(op)
	p := op.Progress
	if p.Stack != "" {
		e.s.Stack = p.Stack
		if op.Kind != lifecycle.OpPlan { // a plan --to previews a release the instance does not run
			e.s.Release = p.Release
		}
	}
	if op.ConfigYAML != "" && (op.Kind == lifecycle.OpProvision || op.Kind == lifecycle.OpDeploy) {
		e.s.ControlPlane = op.ControlPlane // the pool the committed config names from now on
	}
	if p.Revision != "" && op.Kind != lifecycle.OpPlan {
		e.s.Revision = p.Revision
	}
	if p.App != nil {
		e.s.Deployer = p.App.Deployer
		e.s.Resources = p.App.Resources
	}
	if p.Infra != nil {
		e.s.Infrastructure = p.Infra.Resources
		e.s.Outputs = p.Infra.Outputs
	}
	switch op.Kind {
	case lifecycle.OpProvision:
		e.setConditions(cond(lifecycle.CondProgrammed, lifecycle.ConditionFalse, "NotApplied", "configuration created; not deployed yet"),
			cond(lifecycle.CondRunning, lifecycle.ConditionFalse, "NotDeployed", ""))
	case lifecycle.OpDeploy:
		e.s.DeployedRevision = p.Revision
		e.clearDrift(op)
		e.recordDeployed(p.App, op.EndedAt)
		e.setConditions(cond(lifecycle.CondProgrammed, lifecycle.ConditionTrue, "Applied",
			fmt.Sprintf("%d resource(s) at %s", len(e.s.Infrastructure), short(p.Revision))), runningFrom(p.App))
	case lifecycle.OpArchive:
		e.setConditions(e.condition(lifecycle.CondProgrammed), cond(lifecycle.CondRunning, lifecycle.ConditionFalse, "Archived", "app and namespace removed"))
	case lifecycle.OpDestroy, lifecycle.OpDeprovision:
		e.setConditions(cond(lifecycle.CondProgrammed, lifecycle.ConditionFalse, "Destroyed", "infrastructure destroyed"),
			cond(lifecycle.CondRunning, lifecycle.ConditionFalse, "Removed", "app removed"))
	}
}

func runningFrom(app *contract.AppStatus) lifecycle.Condition {
	switch {
	case app != nil && app.Observer != "":
		return observe.Running(*app, time.Time{})
	case app == nil:
		return cond(lifecycle.CondRunning, lifecycle.ConditionUnknown, "NoStatus", "")
	case !app.Deployed:
		return cond(lifecycle.CondRunning, lifecycle.ConditionUnknown, "NotDeployed", app.Message)
	case app.Sync == "Synced" && app.Health == "Healthy":
		return cond(lifecycle.CondRunning, lifecycle.ConditionTrue, "Healthy", "Synced and Healthy")
	}
	return cond(lifecycle.CondRunning, lifecycle.ConditionFalse, app.Health, app.Message)
}

func cond(t string, s lifecycle.ConditionStatus, reason, msg string) lifecycle.Condition {
	return lifecycle.Condition{Type: t, Status: s, Reason: reason, Message: msg}
}

func (e *entity) condition(t string) lifecycle.Condition {
	for _, c := range e.s.Conditions {
		if c.Type == t {
			return c
		}
	}
	return cond(t, lifecycle.ConditionUnknown, "", "")
}

// stampConditions dates the conditions an operation just set; ones it kept keep their date.
func (e *entity) stampConditions(at time.Time) {
	for i := range e.s.Conditions {
		if e.s.Conditions[i].ObservedAt.IsZero() {
			e.s.Conditions[i].ObservedAt = at
		}
	}
}

func (e *entity) setConditions(programmed, running lifecycle.Condition) {
	e.s.Conditions = []lifecycle.Condition{programmed, running, lifecycle.ReadyFrom(programmed, running)}
}

// decide applies an operator's retry, resolve or abandon to the failed operation.
func (e *entity) decide(ctx workflow.Context, d lifecycle.Decision, req contract.DecisionRequest) (contract.OperationResult, error) {
	if err := e.admitDecision(d, req); err != nil {
		return contract.OperationResult{}, err
	}
	if r := e.retryingNow(); e.busy && r != nil {
		return e.retryNow(ctx, r, req)
	}
	op := e.s.Current
	rec := contract.DecisionRecord{Decision: d, OperationID: op.ID, Actor: req.Actor, Reason: req.Reason,
		From: e.s.State, At: workflow.Now(ctx)}
	if req.ForceUnlock != "" {
		return e.forceUnlockAndResume(ctx, op, rec, req.ForceUnlock)
	}
	if req.AcceptRender {
		e.busy = true
		defer func() { e.busy = false }()
		rec.AcceptedRender = op.Progress.Revision
		rec.AcceptedFiles, rec.AcceptedDiff = acceptedChange(op.Failure)
		op.Progress.AcceptedRender = op.Progress.Revision
		return e.resume(ctx, op, rec), nil
	}
	if req.SkipHook {
		e.busy = true
		defer func() { e.busy = false }()
		rec.SkippedHook = op.Failure.Step
		op.Progress.Done = append(op.Progress.Done, op.Failure.Step)
		return e.resume(ctx, op, rec), nil
	}
	switch d {
	case lifecycle.DecisionRetry:
		e.busy = true
		defer func() { e.busy = false }()
		return e.resume(ctx, op, rec), nil
	case lifecycle.DecisionResolve:
		rec.To = op.From
		if req.To != "" {
			rec.To = req.To
		}
		op.Result = contract.ResultResolved
	case lifecycle.DecisionAbandon:
		rec.To = op.From
		op.Result = contract.ResultAbandoned
		if op.Failure != nil {
			e.s.Abandoned = append(e.s.Abandoned, op.Failure.Leftovers...)
		}
	}
	e.s.Decisions = append(e.s.Decisions, rec)
	e.setState(ctx, rec.To)
	e.releaseNames(ctx)
	return e.result(op), nil
}

// resume runs the failed operation again from its failed step, as a retry does.
func (e *entity) resume(ctx workflow.Context, op *contract.Operation, rec contract.DecisionRecord) contract.OperationResult {
	rec.To = op.Kind.Running(op.From)
	e.s.Decisions = append(e.s.Decisions, rec)
	op.Attempt++
	op.Result, op.Failure, op.EndedAt = contract.ResultRunning, nil, time.Time{}
	e.setState(ctx, rec.To)
	return e.execute(ctx, op)
}

// forceUnlockAndResume forces the stuck terraform lock the operator named, then resumes. If
// the unlock fails, the instance stays failed and the decision is recorded with the error.
func (e *entity) forceUnlockAndResume(ctx workflow.Context, op *contract.Operation, rec contract.DecisionRecord, lockID string) (contract.OperationResult, error) {
	e.busy = true
	defer func() { e.busy = false }()
	rec.ForceUnlock = lockID
	in := contract.UnlockInput{Ref: e.s.Ref, LockID: lockID}
	if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActForceUnlock, in).Get(ctx, nil); err != nil {
		rec.To, rec.Error = e.s.State, errorMessage(err)
		e.s.Decisions = append(e.s.Decisions, rec)
		return contract.OperationResult{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: force-unlock %s failed, the instance stays %s: %s", e.s.Ref, lockID, e.s.State, rec.Error),
			errorType(err), nil)
	}
	return e.resume(ctx, op, rec), nil
}

// pipelineSearchAttributes let the UI list an instance's pipelines by tenant and name.
func pipelineSearchAttributes(ref contract.Ref) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(contract.SATenant.ValueSet(ref.Tenant), contract.SAInstanceName.ValueSet(ref.Name))
}
