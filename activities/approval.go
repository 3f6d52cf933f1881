package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/identity"
)

// CloseMergeRequest closes an MR whose operation ended unapproved and deletes its branch.
func (a *Activities) CloseMergeRequest(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if err := a.fence(ctx); err != nil {
		return mr, err
	}
	out, err := a.Forge.Close(forgeNotes(ctx, "branch", mr.Branch), mr)
	return out, classify(err)
}

// AnnouncePlan comments on the MR that its operation awaits approval of a plan; the comment's
// key makes a retry post it once. A forge that cannot comment is told nothing.
func (a *Activities) AnnouncePlan(ctx context.Context, in contract.AnnounceInput) error {
	if err := a.fence(ctx); err != nil {
		return err
	}
	rep, ok := forge.As[forge.Reporter](a.Forge)
	if !ok {
		return nil
	}
	mr, found, err := a.Forge.Get(ctx, in.MR)
	if err != nil || !found {
		return classify(err)
	}
	return classify(rep.Comment(ctx, mr, in.Key, in.Body))
}

// SubmitApproval sends one approval comment of a recorded delivery to its instance, keyed by
// the delivery and the comment's place in it. A refusal is answered on the MR, where the
// commenter looks, and is the outcome; it is not retried.
func (a *Activities) SubmitApproval(ctx context.Context, in contract.ApprovalSubmit) (contract.DeliveryOutcome, error) {
	c := in.Command
	out := contract.DeliveryOutcome{Instance: c.Ref.String(), Operation: c.Verb,
		Request: approvalRequestID(in), Workflow: contract.InstanceWorkflowID(c.Ref)}
	if a.Requests == nil {
		return out, notAllowedf("this worker has no Temporal client for webhook requests")
	}
	source := fmt.Sprintf("%s comment by %s on MR %s", in.Provider, c.Commenter, c.MR)
	if c.URL != "" {
		source += " (" + c.URL + ")"
	}
	// Checked through the forge's API before anything is submitted; the refusal is the outcome
	// the delivery records, and the reply names the account, never the plan.
	actor, err := a.verifiedCommenter(ctx, in.Provider, c.Commenter, c.CommenterID)
	var notWriter *commenterRefusedError
	switch {
	case errors.As(err, &notWriter):
		out.Error = err.Error()
		if activity.IsActivity(ctx) {
			activity.GetLogger(ctx).Warn("approval comment refused", "delivery", in.Delivery, "commenter", c.Commenter, "error", out.Error)
		}
		a.replyOnMR(ctx, c, "refused-"+out.Request, fmt.Sprintf("slipway did not take `/slipway %s` from @%s: %s", c.Verb, c.Commenter, out.Error))
		return out, nil
	case err != nil:
		return out, err
	}
	err = a.Requests.Approve(identity.With(ctx, actor), c, source, out.Request)
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		out.Error = err.Error()
		a.replyOnMR(ctx, c, "refused-"+out.Request, fmt.Sprintf("slipway did not take `/slipway %s` from @%s: %s", c.Verb, c.Commenter, out.Error))
		return out, nil
	case err != nil:
		return out, err
	}
	out.Started = true
	a.replyOnMR(ctx, c, "taken-"+out.Request, fmt.Sprintf("slipway: %s %s by @%s.", c.Ref, contract.Past(c.Verb), c.Commenter))
	return out, nil
}

// replyOnMR answers a comment on its MR, once per key; a forge that cannot comment is told nothing.
func (a *Activities) replyOnMR(ctx context.Context, c contract.ApprovalCommand, key, body string) {
	if rep, ok := forge.As[forge.Reporter](a.Forge); ok {
		if err := rep.Comment(ctx, forge.MergeRequest{ID: c.MR}, key, body); err != nil && activity.IsActivity(ctx) {
			activity.GetLogger(ctx).Warn("reply on MR failed", "mr", c.MR, "error", err)
		}
	}
}

// approvalRequestID keys a comment's command by the comment (its URL names it) and its place in
// it, so the same comment delivered again under a new delivery ID is the same request.
func approvalRequestID(in contract.ApprovalSubmit) string {
	if in.Command.URL == "" {
		return fmt.Sprintf("%s/approval-%d", in.Delivery, in.Index)
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", in.Provider, in.Command.URL, in.Index)))
	return in.Provider + "/approval-" + hex.EncodeToString(sum[:12])
}
