package workflows

import (
	"fmt"
	"slices"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/planprint"
)

// registerApprove adds `rollout approve ID --fingerprint F`: one approval of a plan shape for every
// deploy of the rollout whose plan has it (the policy decides who, before the handler runs).
func (r *rollout) registerApprove(ctx workflow.Context) error {
	return workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateRolloutApprove,
		func(ctx workflow.Context, req contract.RolloutApproveRequest) (contract.RolloutStatus, error) {
			if err := r.admitApprove(req); err != nil {
				return contract.RolloutStatus{}, err
			}
			actor, verified := verifiedActor(ctx)
			if err := r.approveGroup(ctx, req, actor, verified); err != nil {
				return contract.RolloutStatus{}, err
			}
			r.show(ctx)
			return r.status(ctx), nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.RolloutApproveRequest) error { return r.admitApprove(req) }})
}

// admitApprove refuses a fingerprint that names no plan shape the rollout's deploys waited with.
func (r *rollout) admitApprove(req contract.RolloutApproveRequest) error {
	g := r.group(req.Fingerprint)
	switch {
	case strings.TrimSpace(req.Fingerprint) == "":
		return notAllowed("--fingerprint: name the plan shape to approve (slipway rollout status %s lists them)", r.s.Spec.ID)
	case g == nil:
		var seen []string
		for _, g := range r.s.Groups {
			seen = append(seen, g.Fingerprint)
		}
		return notAllowed("--fingerprint %s: no deploy of rollout %s waits with that plan shape (waiting: %s)", req.Fingerprint, r.s.Spec.ID, orNone(seen))
	case g.ApprovedBy != nil:
		return notAllowed("--fingerprint %s: approved already by %s", req.Fingerprint, g.ApprovedBy.Name)
	}
	return nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none yet"
	}
	return strings.Join(s, ", ")
}

// approveGroup records the approval of a shape, four-eyes first, in the audit, and approves every
// deploy waiting with it on behalf of the approver.
func (r *rollout) approveGroup(ctx workflow.Context, req contract.RolloutApproveRequest, actor identity.Actor, verified bool) error {
	rec := contract.AuditRecord{At: workflow.Now(ctx), Decision: AuditApproved, Request: fmt.Sprintf("update %s %s of %s", contract.UpdateRolloutApprove, req.Fingerprint, r.s.Spec.ID),
		Workflow: contract.RolloutWorkflowID(r.s.Spec.ID), Actor: actorOrNil(actor, verified), Reason: req.Reason}
	refuse := func(why string) error {
		rec.Decision, rec.Reason = contract.AuditDenied, why
		stackAudit(ctx, r.s.Spec.Stack, rec)
		return temporal.NewNonRetryableApplicationError("rollout "+r.s.Spec.ID+": refused: "+why, ErrPolicyDenied, nil)
	}
	switch {
	case !verified:
		// The rollout approves as this person: it must know who they are.
		return refuse("the approval carries no verified identity")
	case r.s.Requester != nil && sameActor(actor, *r.s.Requester):
		return refuse(actor.Name + " started this rollout and may not approve its plans: self-approval is refused")
	}
	stackAudit(ctx, r.s.Spec.Stack, rec)
	g := r.group(req.Fingerprint)
	g.ApprovedBy, g.Reason, g.ApprovedAt = &actor, req.Reason, workflow.Now(ctx)
	for i := range r.s.Instances {
		if in := &r.s.Instances[i]; in.Awaiting != nil && in.Awaiting.Fingerprint == g.Fingerprint && !in.Awaiting.Approved {
			r.approveOne(ctx, in, g)
		}
	}
	return nil
}

// receiveApprovalWaits groups the deploys that wait for approval by plan shape; one whose shape is
// approved already is approved at once, the others wait, named in the rollout's status.
func (r *rollout) receiveApprovalWaits(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, contract.SignalRolloutApproval)
	for {
		var w contract.RolloutApprovalWait
		if !ch.Receive(ctx, &w) {
			return
		}
		in := r.s.Find(w.Ref)
		if in == nil || (in.Status != contract.RolloutStarting && in.Status != contract.RolloutRunning) {
			continue
		}
		fp := planprint.Of(w.Plan, r.s.Stateful)
		g := r.group(fp.Hash)
		if g == nil {
			r.s.Groups = append(r.s.Groups, contract.RolloutGroup{Fingerprint: fp.Hash, Summary: fp.Summary, Stateful: fp.Stateful})
			g = &r.s.Groups[len(r.s.Groups)-1]
		}
		if ref := w.Ref.String(); !slices.Contains(g.Refs, ref) {
			g.Refs = append(g.Refs, ref)
		}
		in.Awaiting = &contract.RolloutAwaiting{OpID: w.OpID, Fingerprint: fp.Hash, Hash: w.Hash}
		if g.ApprovedBy != nil {
			r.approveOne(ctx, in, g)
		}
		r.show(ctx)
	}
}

// approveOne approves one waiting deploy as the group's approver; the instance may still refuse
// (its own approvers, a plan made again meanwhile), and then it waits for its own approval.
func (r *rollout) approveOne(ctx workflow.Context, in *contract.RolloutInstance, g *contract.RolloutGroup) {
	in.Awaiting.Approved = true
	id := contract.RolloutWorkflowID(r.s.Spec.ID)
	req := contract.RolloutApproveInput{Rollout: id, Ref: in.Ref, Hash: in.Awaiting.Hash, Fingerprint: g.Fingerprint, Approver: *g.ApprovedBy,
		Reason: g.Reason, RequestID: fmt.Sprintf("%s/%s/%s/approve", id, in.Ref, in.Awaiting.OpID)}
	ref := in.Ref
	workflow.Go(ctx, func(ctx workflow.Context) {
		var refused string
		err := workflow.ExecuteActivity(requestCtx(ctx), contract.ActRolloutApprove, req).Get(ctx, &refused)
		if err != nil {
			refused = errorMessage(err)
		}
		if in := r.s.Find(ref); refused != "" && in != nil && in.Awaiting != nil {
			in.Awaiting.Approved = false
			in.Reason = "awaits its own approval: " + refused
			r.show(ctx)
		}
	})
}

// group is the rollout's plan shape with the fingerprint, or nil.
func (r *rollout) group(fp string) *contract.RolloutGroup {
	for i := range r.s.Groups {
		if r.s.Groups[i].Fingerprint == fp {
			return &r.s.Groups[i]
		}
	}
	return nil
}
