package workflows

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/internal/steps"
)

// Approval updates, condition and results.
const (
	UpdateApprove = "approve"
	UpdateReject  = "reject"
	// CondAwaitingApproval is True while an operation waits for its plan to be approved.
	CondAwaitingApproval = "AwaitingApproval"
	// ResultRejected and ResultExpired end an operation at its approval with nothing applied.
	ResultRejected   = "rejected"
	ResultExpired    = "expired"
	approvalLogKept  = 50
	approvalVoided   = "voided"
	approvalAwaiting = "awaiting"
)

// ApprovalRequest is the argument of approve and reject.
type ApprovalRequest struct {
	Plan   string `json:"plan,omitempty"` // the plan hash, or at least 7 of its first digits
	Actor  string `json:"actor"`
	Reason string `json:"reason,omitempty"`
	// Source says where it came from: cli, or the forge comment's URL.
	Source string `json:"source,omitempty"`
	// MR is the MR/PR number a forge comment is on; empty for the CLI.
	MR string `json:"mr,omitempty"`
}

// ApprovalRecord is one event of an approval: awaited, approved, rejected, expired or voided.
type ApprovalRecord struct {
	OpID   string    `json:"opID"`
	Hash   string    `json:"hash"`
	Event  string    `json:"event"`
	Actor  string    `json:"actor,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Source string    `json:"source,omitempty"`
	At     time.Time `json:"at"`
}

// ApprovalResult answers approve and reject.
type ApprovalResult struct {
	Instance  string              `json:"instance"`
	Operation lifecycle.Operation `json:"operation"`
	OpID      string              `json:"opID"`
	Hash      string              `json:"hash"`
	Verb      string              `json:"verb"`
}

func (e *entity) registerApprovals(ctx workflow.Context) error {
	for _, verb := range []string{steps.VerbApprove, steps.VerbReject} {
		verb := verb
		err := workflow.SetUpdateHandlerWithOptions(ctx, verb,
			func(ctx workflow.Context, req ApprovalRequest) (ApprovalResult, error) {
				return e.decideApproval(ctx, verb, req)
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req ApprovalRequest) error { return e.admitApproval(verb, req) }})
		if err != nil {
			return err
		}
	}
	return nil
}

// admitApproval refuses, before anything is recorded, an approval of anything but the plan
// that waits, by anyone but its approvers, or from a comment on another MR.
func (e *entity) admitApproval(verb string, req ApprovalRequest) error {
	w := e.s.Approval
	if w == nil {
		return notAllowed("%s: no operation awaits approval (the instance is %s)", e.s.Ref, e.s.State)
	}
	if strings.TrimSpace(req.Actor) == "" {
		return notAllowed("%s: %s needs an actor: every approval is recorded with who gave it", e.s.Ref, verb)
	}
	if verb == steps.VerbReject && strings.TrimSpace(req.Reason) == "" {
		return notAllowed("%s: reject needs a reason (--reason): it is recorded with who rejected", e.s.Ref)
	}
	if verb == steps.VerbApprove && req.Plan == "" {
		return notAllowed("%s: an approval names the plan it approves: --plan %s (%s)", e.s.Ref, short(w.Hash), w.What)
	}
	if req.Plan != "" && !approval.Names(w.Hash, req.Plan) {
		if err := approval.CheckHash(req.Plan); err != nil {
			return notAllowed("%s: --plan: %v", e.s.Ref, err)
		}
		for _, r := range slices.Backward(e.s.ApprovalLog) {
			if r.Event == approvalVoided && approval.Names(r.Hash, req.Plan) {
				return notAllowed("%s: plan %s was voided at %s: a plan made again after it needs its own approval; the plan awaiting approval is %s (%s)",
					e.s.Ref, short(r.Hash), stamp(r.At), short(w.Hash), w.What)
			}
		}
		return notAllowed("%s: plan %s is not the plan awaiting approval; that is %s (%s)", e.s.Ref, req.Plan, short(w.Hash), w.What)
	}
	rule := approval.Rule{Approvers: w.Approvers}
	if !rule.Allows(req.Actor) {
		return notAllowed("%s: %s may not %s: the approvers are %s", e.s.Ref, req.Actor, verb, strings.Join(w.Approvers, ", "))
	}
	if req.MR != "" {
		if len(w.Approvers) == 0 {
			return notAllowed("%s: approvals by comment need an approvers list (approval.approvers in the stack or instance file); use slipway approve", e.s.Ref)
		}
		if w.MR == nil || w.MR.ID != req.MR {
			return notAllowed("%s: the comment is on MR %s, but the approval waits on %s", e.s.Ref, req.MR, mrName(w))
		}
	}
	return nil
}

func mrName(w *ApprovalWait) string {
	if w.MR == nil {
		return "no MR (approve it with slipway approve)"
	}
	return "MR " + w.MR.ID
}

// decideApproval records the decision and passes it to the waiting pipeline.
func (e *entity) decideApproval(ctx workflow.Context, verb string, req ApprovalRequest) (ApprovalResult, error) {
	if err := e.admitApproval(verb, req); err != nil {
		return ApprovalResult{}, err
	}
	w := e.s.Approval
	source := req.Source
	if source == "" {
		source = "cli"
	}
	d := ApprovalDecision{Verb: verb, Hash: w.Hash, Actor: req.Actor, Reason: req.Reason, Source: source, At: workflow.Now(ctx)}
	e.logApproval(ApprovalRecord{OpID: w.OpID, Hash: w.Hash, Event: steps.Past(verb), Actor: req.Actor, Reason: req.Reason, Source: source, At: d.At})
	e.s.Approval = nil
	e.upsertSearchAttributes(ctx)
	res := ApprovalResult{Instance: e.s.Ref.String(), OpID: w.OpID, Hash: w.Hash, Verb: verb}
	if op := e.s.Current; op != nil {
		res.Operation = op.Kind
	}
	// The pipeline may have ended meanwhile (its deadline); then the decision has nothing to reach.
	_ = workflow.SignalExternalWorkflow(ctx, w.Pipeline, "", SignalApprovalDecision, d).Get(ctx, nil)
	return res, nil
}

func (e *entity) logApproval(r ApprovalRecord) {
	e.s.ApprovalLog = append(e.s.ApprovalLog, r)
	if len(e.s.ApprovalLog) > approvalLogKept {
		e.s.ApprovalLog = e.s.ApprovalLog[len(e.s.ApprovalLog)-approvalLogKept:]
	}
}

// receiveApprovals records what the running pipeline waits for.
func (e *entity) receiveApprovals(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalAwaitingApproval)
	for {
		var w ApprovalWait
		if !ch.Receive(ctx, &w) {
			return
		}
		e.awaitApproval(ctx, w)
	}
}

func (e *entity) awaitApproval(ctx workflow.Context, w ApprovalWait) {
	op := e.s.Current
	if op == nil || op.ID != w.OpID || op.Attempt != w.Attempt || op.Result != ResultRunning {
		return
	}
	if w.Voids != "" {
		e.logApproval(ApprovalRecord{OpID: w.OpID, Hash: w.Voids, Event: approvalVoided, At: w.Since,
			Reason: "a plan made again after the approval (" + short(w.Hash) + ") needs its own"})
	}
	e.logApproval(ApprovalRecord{OpID: w.OpID, Hash: w.Hash, Event: approvalAwaiting, Reason: w.Why, At: w.Since})
	e.s.Approval = &w
	e.upsertSearchAttributes(ctx)
	// Sinks reach people who may not approve: they learn who must, not the plan or its hash.
	e.notify(ctx, notify.KindAwaitingApproval, fmt.Sprintf("%s of %s awaits approval by %s until %s: approvers see the plan with slipway status %s",
		op.Kind, e.s.Ref, w.Awaited(), stamp(w.Deadline), e.s.Ref), nil)
}

// endUnapproved applies a pipeline that ended at its approval: back where it started, nothing applied.
func (e *entity) endUnapproved(ctx workflow.Context, op *Operation, pf PipelineFailure) OperationResult {
	op.Result, op.Failure, op.Progress = ResultRejected, &pf.Failure, pf.Progress
	op.Step = pf.Failure.Step
	op.Steps = mergeSteps(op.Steps, op.Attempt, pf.Steps)
	if d := pf.Decision; d != nil && d.Verb == VerbExpired {
		op.Result = ResultExpired
		e.logApproval(ApprovalRecord{OpID: op.ID, Hash: d.Hash, Event: ResultExpired, At: d.At,
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
	msg := fmt.Sprintf("plan %s: %s; %s; until %s", short(w.Hash), w.What, w.Why, stamp(w.Deadline))
	if len(w.Approvers) > 0 {
		msg += "; approvers: " + strings.Join(w.Approvers, ", ")
	}
	c := cond(CondAwaitingApproval, lifecycle.ConditionTrue, "PlanNeedsApproval", msg)
	c.ObservedAt = w.Since
	return &c
}
