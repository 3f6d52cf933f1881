package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/internal/policy"
)

// Approval bookkeeping: the log's bound, its record kinds and the audit decisions of approvals.
const (
	approvalLogKept  = 50
	approvalVoided   = "voided"
	approvalAwaiting = "awaiting"
	// approvalRefused records an approve or reject the policy refused; it names no plan.
	approvalRefused = "refused"
	// Audit decisions of approvals (beside the request decisions of audit.go).
	AuditApprovalAsked = "approval asked"
	AuditApproved      = "approved"
	AuditRejected      = "rejected"
)

func (e *entity) registerApprovals(ctx workflow.Context) error {
	for _, verb := range []string{contract.VerbApprove, contract.VerbReject} {
		verb := verb
		err := workflow.SetUpdateHandlerWithOptions(ctx, verb,
			func(ctx workflow.Context, req contract.ApprovalRequest) (contract.ApprovalResult, error) {
				return e.decideApproval(ctx, verb, req)
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.ApprovalRequest) error { return e.admit(verb, req) }})
		if err != nil {
			return err
		}
	}
	return nil
}

// admitRequest refuses, before anything is recorded, what is wrong whoever sends it: nothing
// awaits, a reject without a reason, an approve without a well-formed plan hash. It says nothing
// of the plan: whoever sends it has not been checked yet.
func (e *entity) admitRequest(verb string, req contract.ApprovalRequest) error {
	w := e.s.Approval
	if w == nil {
		return notAllowed("%s: no operation awaits approval (the instance is %s)", e.s.Ref, e.s.State)
	}
	if verb == contract.VerbReject && strings.TrimSpace(req.Reason) == "" {
		return notAllowed("%s: reject needs a reason (--reason): it is recorded with who rejected", e.s.Ref)
	}
	if verb == contract.VerbApprove && req.Plan == "" {
		return notAllowed("%s: an approval names the plan it approves (--plan HASH); approvers read it with slipway status %s", e.s.Ref, e.s.Ref)
	}
	if req.Plan != "" {
		if err := approval.CheckHash(req.Plan); err != nil {
			return notAllowed("%s: --plan: %v", e.s.Ref, err)
		}
	}
	return nil
}

// admitApproval refuses, before anything is recorded, an approval by anyone but its approvers,
// then (to an approver only) of anything but the plan that waits, or from a comment on another MR.
// The approver is checked first: a refusal must never tell someone else about the plan.
func (e *entity) admitApproval(verb string, req contract.ApprovalRequest, actor string) error {
	if err := e.admitRequest(verb, req); err != nil {
		return err
	}
	w := e.s.Approval
	if strings.TrimSpace(actor) == "" {
		return notAllowed("%s: %s needs an actor: every approval is recorded with who gave it", e.s.Ref, verb)
	}
	if w.Required == nil && !(approval.Rule{Approvers: w.Approvers}).Allows(actor) {
		return notAllowed("%s: %s may not %s: the approvers are %s", e.s.Ref, actor, verb, strings.Join(w.Approvers, ", "))
	}
	if req.MR != "" {
		if len(w.Approvers) == 0 {
			return notAllowed("%s: approvals by comment need an approvers list (approval.approvers in the stack or instance file); use slipway approve", e.s.Ref)
		}
		if w.MR == nil || w.MR.ID != req.MR {
			return notAllowed("%s: the comment is on MR %s, but the approval waits on %s", e.s.Ref, req.MR, mrName(w))
		}
	}
	if req.Plan != "" && !approval.Names(w.Hash, req.Plan) {
		if err := approval.CheckHash(req.Plan); err != nil {
			return notAllowed("%s: --plan: %v", e.s.Ref, err)
		}
		// Nothing of either hash: a refusal that echoed the real one would hand it to a guesser.
		for _, r := range slices.Backward(e.s.ApprovalLog) {
			if r.Event == approvalVoided && approval.Names(r.Hash, req.Plan) {
				return notAllowed("%s: the plan hash names a plan voided at %s: a plan made again after it needs its own approval; read it with slipway status %s",
					e.s.Ref, stamp(r.At), e.s.Ref)
			}
		}
		return notAllowed("%s: the plan hash does not match the plan awaiting approval (%s)", e.s.Ref, w.What)
	}
	return nil
}

func mrName(w *contract.ApprovalWait) string {
	if w.MR == nil {
		return "no MR (approve it with slipway approve)"
	}
	return "MR " + w.MR.ID
}

// admit is the update's validator: a wait from before approvals were the policy's is checked
// as it was (its approvers by name, then the plan); a policy's wait only for what needs no
// identity, since the approver is checked by the policy in the handler, before the plan.
func (e *entity) admit(verb string, req contract.ApprovalRequest) error {
	if w := e.s.Approval; w != nil && w.Required == nil {
		return e.admitApproval(verb, req, req.Actor)
	}
	return e.admitRequest(verb, req)
}

// decideApproval checks the approver, records the decision and, once the approval is complete
// (or on a reject), passes it to the waiting pipeline.
func (e *entity) decideApproval(ctx workflow.Context, verb string, req contract.ApprovalRequest) (contract.ApprovalResult, error) {
	if err := e.admitRequest(verb, req); err != nil {
		return contract.ApprovalResult{}, err
	}
	w := e.s.Approval
	actor, verified := verifiedActor(ctx)
	if w.Required != nil {
		return e.decideByPolicy(ctx, verb, req, actor, verified)
	}
	name := req.Actor
	if verified && (rides(ctx) || workflow.GetVersion(ctx, changeVerifiedApprover, workflow.DefaultVersion, 1) >= 1) {
		name = actor.Name // not what the request says about itself
	}
	if err := e.admitApproval(verb, req, name); err != nil {
		return contract.ApprovalResult{}, err
	}
	return e.takeDecision(ctx, verb, req, name, nil)
}

// decideByPolicy asks the policy (op approve or reject, with who asked, what is required and who
// approved so far) whether the verified actor may decide, before anything about the plan is
// checked or said; a refusal is recorded in the approval log without the plan. An approval
// counts once per approver; the pipeline hears of it when the required count is reached.
func (e *entity) decideByPolicy(ctx workflow.Context, verb string, req contract.ApprovalRequest, actor identity.Actor, verified bool) (contract.ApprovalResult, error) {
	w := e.s.Approval
	source := first(req.Source, "cli")
	var policyHash string
	refuse := func(why string) (contract.ApprovalResult, error) {
		e.logApproval(contract.ApprovalRecord{OpID: w.OpID, Event: approvalRefused, Actor: actor.Name, By: actorOrNil(actor, verified),
			Reason: why, Source: source, At: workflow.Now(ctx)})
		e.audit(ctx, contract.AuditRecord{At: workflow.Now(ctx), Decision: contract.AuditDenied, Request: "update " + verb, Actor: actorOrNil(actor, verified),
			PolicyHash: policyHash, Reason: why})
		return contract.ApprovalResult{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s: refused: %s", e.s.Ref, why), ErrPolicyDenied, nil)
	}
	if !verified {
		return refuse("the " + verb + " carries no verified identity")
	}
	in := policy.Input{Actor: actor, Operation: verb, Tenant: e.s.Ref.Tenant, Name: e.s.Ref.Name, State: string(e.s.State),
		Stack:    policy.Stack{Name: e.s.Stack},
		Approval: &policy.ApprovalInput{Required: *w.Required, Approvals: w.Approvals}}
	if w.Requester != nil {
		in.Approval.Requester = *w.Requester
	}
	var d policy.Decision
	if err := quick(ctx, true, contract.ActAuthorize, in).Get(ctx, &d); err != nil {
		return contract.ApprovalResult{}, err
	}
	policyHash = d.PolicyHash
	if e.s.Approval != w {
		return contract.ApprovalResult{}, notAllowed("%s: the approval ended while the policy decided", e.s.Ref)
	}
	switch {
	case !d.Allow:
		return refuse(d.Reason)
	case !w.Required.AllowSelf && w.Requester != nil && sameActor(actor, *w.Requester):
		// The policy says so too; this holds whatever policy an operator loads.
		return refuse(actor.Name + " asked for this and may not " + verb + " it: self-approval is refused")
	case verb == contract.VerbApprove && slices.ContainsFunc(w.Approvals, func(a identity.Actor) bool { return sameActor(a, actor) }):
		return refuse(actor.Name + " has already approved: approvals count distinct people")
	}
	if err := e.admitApproval(verb, req, actor.Name); err != nil {
		return contract.ApprovalResult{}, err
	}
	decision := AuditRejected
	if verb == contract.VerbApprove {
		decision = AuditApproved
	}
	e.audit(ctx, contract.AuditRecord{At: workflow.Now(ctx), Decision: decision, Request: "update " + verb, Actor: &actor,
		PolicyHash: d.PolicyHash, Reason: d.Reason})
	if verb == contract.VerbApprove {
		w.Approvals = append(w.Approvals, actor)
		if n := len(w.Approvals); n < w.Required.Count {
			e.logApproval(contract.ApprovalRecord{OpID: w.OpID, Hash: w.Hash, Event: contract.Past(verb), Actor: actor.Name, By: &actor,
				Reason: strings.TrimSpace(fmt.Sprintf("%d of %d approvals. %s", n, w.Required.Count, req.Reason)), Source: source, At: workflow.Now(ctx)})
			res := contract.ApprovalResult{Instance: e.s.Ref.String(), OpID: w.OpID, Hash: w.Hash, Verb: verb}
			if op := e.s.Current; op != nil {
				res.Operation = op.Kind
			}
			return res, nil
		}
	}
	names := actor.Name
	if verb == contract.VerbApprove && len(w.Approvals) > 1 {
		var all []string
		for _, a := range w.Approvals {
			all = append(all, a.Name)
		}
		names = strings.Join(all, ", ")
	}
	return e.takeDecision(ctx, verb, req, names, &actor)
}

// sameActor: one subject at one issuer, or, without subjects, one name of one kind at one issuer.
func sameActor(a, b identity.Actor) bool {
	if a.Issuer != b.Issuer {
		return false
	}
	if a.Subject != "" || b.Subject != "" {
		return a.Subject == b.Subject
	}
	return a.Kind == b.Kind && a.Name == b.Name
}

func actorOrNil(a identity.Actor, ok bool) *identity.Actor {
	if !ok {
		return nil
	}
	return &a
}

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// takeDecision records the decision and passes it to the waiting pipeline.
func (e *entity) takeDecision(ctx workflow.Context, verb string, req contract.ApprovalRequest, actor string, by *identity.Actor) (contract.ApprovalResult, error) {
	w := e.s.Approval
	source := first(req.Source, "cli")
	d := contract.ApprovalDecision{Verb: verb, Hash: w.Hash, Actor: actor, Reason: req.Reason, Source: source, At: workflow.Now(ctx)}
	e.logApproval(contract.ApprovalRecord{OpID: w.OpID, Hash: w.Hash, Event: contract.Past(verb), Actor: actor, By: by, Reason: req.Reason, Source: source, At: d.At})
	e.s.Approval = nil
	e.upsertSearchAttributes(ctx)
	res := contract.ApprovalResult{Instance: e.s.Ref.String(), OpID: w.OpID, Hash: w.Hash, Verb: verb}
	if op := e.s.Current; op != nil {
		res.Operation = op.Kind
	}
	// The pipeline may have ended meanwhile (its deadline); then the decision has nothing to reach.
	_ = workflow.SignalExternalWorkflow(ctx, w.Pipeline, "", contract.SignalApprovalDecision, d).Get(ctx, nil)
	return res, nil
}

func (e *entity) logApproval(r contract.ApprovalRecord) {
	e.s.ApprovalLog = append(e.s.ApprovalLog, r)
	if len(e.s.ApprovalLog) > approvalLogKept {
		e.s.ApprovalLog = e.s.ApprovalLog[len(e.s.ApprovalLog)-approvalLogKept:]
	}
}

// receiveApprovals records what the running pipeline waits for.
func (e *entity) receiveApprovals(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, contract.SignalAwaitingApproval)
	for {
		var w contract.ApprovalWait
		if !ch.Receive(ctx, &w) {
			return
		}
		e.awaitApproval(ctx, w)
	}
}

func (e *entity) awaitApproval(ctx workflow.Context, w contract.ApprovalWait) {
	op := e.s.Current
	if op == nil || op.ID != w.OpID || op.Attempt != w.Attempt || op.Result != contract.ResultRunning {
		return
	}
	if w.Voids != "" {
		e.logApproval(contract.ApprovalRecord{OpID: w.OpID, Hash: w.Voids, Event: approvalVoided, At: w.Since,
			Reason: "a plan made again after the approval (" + short(w.Hash) + ") needs its own"})
	}
	e.logApproval(contract.ApprovalRecord{OpID: w.OpID, Hash: w.Hash, Event: approvalAwaiting, Reason: w.Why, At: w.Since})
	if w.Required != nil {
		// Whose request, which policy, who must approve: not the plan (the audit is for every reader).
		e.audit(ctx, contract.AuditRecord{At: w.Since, Decision: AuditApprovalAsked, Request: string(op.Kind) + " " + op.ID, Workflow: w.Pipeline,
			Actor: w.Requester, PolicyHash: w.PolicyHash, Reason: "awaiting approval by " + w.Awaited()})
	}
	e.s.Approval = &w
	e.upsertSearchAttributes(ctx)
	// Sinks reach people who may not approve: they learn who must, not the plan or its hash.
	e.notify(ctx, notify.KindAwaitingApproval, fmt.Sprintf("%s of %s awaits approval by %s until %s: approvers see the plan with slipway status %s",
		op.Kind, e.s.Ref, w.Awaited(), stamp(w.Deadline), e.s.Ref), nil)
	e.tellRolloutAwaiting(ctx, op, w)
}

// tellRolloutAwaiting tells the rollout that sent this deploy that it waits, with its plan's shape
// (no values), so an approval of that shape once can approve it.
func (e *entity) tellRolloutAwaiting(ctx workflow.Context, op *contract.Operation, w contract.ApprovalWait) {
	if op.Rollout == "" || w.Plan == nil || !tellsRolloutOfApprovals(ctx) {
		return
	}
	plan := *w.Plan
	plan.Resources = slices.Clone(plan.Resources)
	for i := range plan.Resources {
		attrs := make([]contract.AttributeChange, len(plan.Resources[i].Attributes))
		for j, a := range plan.Resources[i].Attributes {
			attrs[j] = contract.AttributeChange{Path: a.Path}
		}
		plan.Resources[i].Attributes = attrs
	}
	aw := contract.RolloutApprovalWait{Ref: e.s.Ref, OpID: op.ID, Hash: w.Hash, Plan: plan}
	// A rollout that ended meanwhile has nothing to approve: the wait stays the instance's own.
	_ = workflow.SignalExternalWorkflow(ctx, op.Rollout, "", contract.SignalRolloutApproval, aw).Get(ctx, nil)
}

// endUnapproved applies a pipeline that ended at its approval: back where it started, nothing applied.
func (e *entity) endUnapproved(ctx workflow.Context, op *contract.Operation, pf contract.PipelineFailure) contract.OperationResult {
	op.Result, op.Failure, op.Progress = contract.ResultRejected, &pf.Failure, pf.Progress
	op.Step = pf.Failure.Step
	op.Steps = mergeSteps(op.Steps, op.Attempt, pf.Steps)
	if d := pf.Decision; d != nil && d.Verb == VerbExpired {
		op.Result = contract.ResultExpired
		e.logApproval(contract.ApprovalRecord{OpID: op.ID, Hash: d.Hash, Event: contract.ResultExpired, At: d.At,
			Reason: "no approval before the deadline"})
	}
	e.s.Approval = nil
	e.setState(ctx, op.From)
	e.upsertSearchAttributes(ctx)
	e.tellRollout(ctx, op)
	return e.result(op)
}

// approvalCondition is AwaitingApproval=True while an operation waits; nil otherwise.
func (e *entity) approvalCondition() *lifecycle.Condition {
	w := e.s.Approval
	if w == nil {
		return nil
	}
	// Conditions are for everyone who may read the instance: who must approve, not the plan.
	msg := fmt.Sprintf("awaiting approval by %s until %s; approvers see the plan with slipway status %s", w.Awaited(), stamp(w.Deadline), e.s.Ref)
	c := cond(contract.CondAwaitingApproval, lifecycle.ConditionTrue, "PlanNeedsApproval", msg)
	c.ObservedAt = w.Since
	return &c
}
