package workflows

import (
	"reflect"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
)

// ErrPolicyDenied is the application error type of an update the policy denies.
const ErrPolicyDenied = "PolicyDenied"

// policyOperation is the policy's name for an update of the instance; "" for the ones decided
// elsewhere (approve and reject, at the approval with the requirement they act on).
func policyOperation(update string) string {
	switch update {
	case contract.UpdateGateAdd, contract.UpdateGateRemove:
		return "gate"
	case contract.UpdateCancel:
		return "cancel"
	case contract.UpdateRefresh:
		return "refresh"
	case contract.UpdateCheckDrift:
		return "drift"
	case contract.UpdateNewRun:
		return contract.UpdateNewRun
	case contract.UpdateProtect, contract.UpdateUnprotect, contract.UpdateExtend:
		return update
	case contract.UpdateRetry, contract.UpdateResolve, contract.UpdateAbandon:
		return update
	}
	if op, ok := lifecycle.ParseOperation(update); ok {
		return string(op)
	}
	return ""
}

// authorize asks the policy (the Authorize local activity: its decision and hash are in history)
// whether the verified actor may make this update, and records the decision in the audit log.
// The policy sees the whole request: its arguments, the instance it touches, and the operation a
// decision acts on with who asked for it.
func (e *entity) authorize(ctx workflow.Context, actor identity.Actor, update string, args []any) error {
	if policyOperation(update) == "" {
		return nil
	}
	in := e.policyInput(actor, update, args)
	rec := contract.AuditRecord{At: workflow.Now(ctx), Request: "update " + update, Actor: &actor}
	var d policy.Decision
	if err := quick(ctx, true, "Authorize", in).Get(ctx, &d); err != nil {
		rec.Decision, rec.Reason = contract.AuditDenied, "the policy could not decide: "+err.Error()
		e.audit(ctx, rec)
		return temporal.NewNonRetryableApplicationError(rec.Reason, ErrPolicyDenied, nil)
	}
	rec.PolicyHash, rec.Reason = d.PolicyHash, d.Reason
	if !d.Allow {
		rec.Decision = contract.AuditDenied
		e.audit(ctx, rec)
		return temporal.NewNonRetryableApplicationError("denied by policy "+shortHash(d.PolicyHash)+": "+d.Reason, ErrPolicyDenied, nil)
	}
	rec.Decision = contract.AuditAllowed
	e.keepWindow(ctx, d)
	if req, ok := firstArg[contract.ProtectRequest](args); ok && req.Reason != "" {
		rec.Reason += "; why: " + req.Reason // the audit says why the protection changed
	}
	if req, ok := firstArg[contract.OperationRequest](args); ok && req.OverrideWindow {
		rec.Reason += "; overrides the change windows: " + req.Reason
	}
	e.audit(ctx, rec)
	return nil
}

// policyInput is the policy's input for update with args, sent by actor.
func (e *entity) policyInput(actor identity.Actor, update string, args []any) policy.Input {
	in := policy.Input{Actor: actor, Operation: policyOperation(update), Tenant: e.s.Ref.Tenant, Name: e.s.Ref.Name,
		State: string(e.s.State), Stack: policy.Stack{Name: e.s.Stack}, Labels: e.s.Labels, Request: requestArg(args),
		Instances: []string{e.s.Ref.String()}, Current: policyOperationOf(e.s.Current)}
	if o, ok := lifecycle.ParseOperation(update); ok && o != lifecycle.OpPlan {
		in.NextState = string(o.Done(e.s.State))
	}
	if d, ok := lifecycle.ParseDecision(update); ok {
		if req, ok := firstArg[contract.DecisionRequest](args); ok {
			in.NextState = string(e.decisionLeadsTo(d, req))
		}
	}
	return in
}

// decisionLeadsTo is where a decision on the current operation leads (as decide takes it): a
// resume runs it again; resolve leaves the instance where the operator says, abandon where it was.
func (e *entity) decisionLeadsTo(d lifecycle.Decision, req contract.DecisionRequest) lifecycle.State {
	op := e.s.Current
	switch {
	case op == nil:
		return ""
	case d == lifecycle.DecisionRetry || req.ForceUnlock != "" || req.AcceptRender || req.SkipHook:
		return op.Kind.Running(op.From)
	case d == lifecycle.DecisionResolve && req.To != "":
		return req.To
	}
	return op.From
}

// requestArg is an update's argument as the policy's input.request: its request struct, or nil.
func requestArg(args []any) any {
	if len(args) == 0 || args[0] == nil || reflect.TypeOf(args[0]).Kind() != reflect.Struct {
		return nil
	}
	return args[0]
}

// firstArg is an update's argument as T.
func firstArg[T any](args []any) (T, bool) {
	var zero T
	if len(args) == 0 {
		return zero, false
	}
	v, ok := args[0].(T)
	return v, ok
}

// policyOperationOf is op as the policy's input.current.
func policyOperationOf(op *contract.Operation) *policy.Operation {
	if op == nil {
		return nil
	}
	out := &policy.Operation{ID: op.ID, Kind: string(op.Kind), Result: op.Result, Requester: op.Requester}
	if op.Failure != nil {
		out.FailedStep = op.Failure.Step
	}
	return out
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// authorize asks the policy whether the verified actor may pause, resume or abort the rollout,
// which spans tenants: the input names them all ("*").
func (r *rollout) authorize(ctx workflow.Context, actor identity.Actor, update string, args []any) error {
	in := policy.Input{Actor: actor, Operation: "rollout", Tenant: "*", Name: workflow.GetInfo(ctx).WorkflowExecution.ID, State: string(r.s.Phase),
		Request: requestArg(args)}
	for _, i := range r.s.Instances {
		in.Instances = append(in.Instances, i.Ref.String())
	}
	var d policy.Decision
	if err := quick(ctx, true, "Authorize", in).Get(ctx, &d); err != nil {
		return temporal.NewNonRetryableApplicationError("the policy could not decide: "+err.Error(), ErrPolicyDenied, nil)
	}
	if !d.Allow {
		workflow.GetLogger(ctx).Warn("rollout update denied", "update", update, "actor", actor.String(), "policy", d.PolicyHash, "reason", d.Reason)
		return temporal.NewNonRetryableApplicationError("denied by policy "+shortHash(d.PolicyHash)+": "+d.Reason, ErrPolicyDenied, nil)
	}
	return nil
}
