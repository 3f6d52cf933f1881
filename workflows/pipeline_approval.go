package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
)

// VerbExpired is the decision the deadline makes.
const VerbExpired = "expired"

// notApprovedError ends an operation at its approval: rejected or expired, nothing applied.
type notApprovedError struct{ d contract.ApprovalDecision }

func (e *notApprovedError) Error() string {
	if e.d.Verb == VerbExpired {
		return fmt.Sprintf("plan %s was not approved before its deadline; nothing was applied", short(e.d.Hash))
	}
	return fmt.Sprintf("plan %s was rejected by %s: %s; nothing was applied", short(e.d.Hash), e.d.Actor, e.d.Reason)
}

// rule is the approval rule in force, or nil when this run has no lifecycle controls.
func (p *pipeline) rule() *approval.Rule {
	if !p.controls || p.progress.Controls == nil {
		return nil
	}
	return &p.progress.Controls.Approval
}

// approvePlan waits for approval of a terraform plan when the rule asks for it.
func (p *pipeline) approvePlan(plan *contract.PlanOutput, what string) error {
	return p.approval(plan.SHA256, what+": "+planLine(plan.Summary), plan)
}

// approval stops the operation until hash is approved, when the rule asks for it: durably (a
// signal wakes it), visibly (the instance shows AwaitingApproval), and for at most the rule's timeout.
func (p *pipeline) approval(hash, what string, plan *contract.PlanOutput) error {
	if p.policy {
		return p.policyApproval(hash, what, plan)
	}
	r := p.rule()
	if r == nil {
		return nil
	}
	var removed []string
	var summary *contract.PlanSummary
	if plan != nil {
		summary = &plan.Summary
		removed = summary.Removed()
	}
	need, why := r.Needs(p.in.Operation, removed)
	if !need || hash == p.approved {
		return nil
	}
	return p.await(contract.ApprovalWait{Hash: hash, What: what, Plan: summary, Why: why, Approvers: r.Approvers}, r.Wait())
}

// unknownRequester stands for who asked for an operation accepted before requests carried a
// verified actor: the policy still decides on the plan, and no one's approval is self-approval.
var unknownRequester = identity.Actor{Kind: identity.Service, Issuer: "slipway", Name: "unverified-request"}

// policyApproval asks the policy (a local activity, so the decision and the policy's hash are in
// history) whether the operation may go on with this plan, and by whom it must be approved
// first: the stack's approval rule is one of its inputs, and its platform rules (destroy,
// deprovision, a stateful resource deleted or replaced) win over it. The worker reads the saved
// plan's JSON (before and after values, sensitive ones masked) and the instance file's diff
// into the input (policy.Fill), so neither travels in history.
func (p *pipeline) policyApproval(hash, what string, plan *contract.PlanOutput) error {
	r := p.rule()
	if r == nil || hash == p.approved {
		return nil
	}
	in := policy.Input{Operation: string(p.in.Operation), Tenant: p.in.Ref.Tenant, Name: p.in.Ref.Name, State: string(p.in.From),
		NextState: string(p.in.Operation.Done(p.in.From)), Instances: []string{p.in.Ref.String()},
		Stack: policy.Stack{Name: p.in.Stack, Stateful: p.progress.Controls.Stateful, Approval: *r},
		Fill:  &policy.Fill{Tenant: p.in.Ref.Tenant, Name: p.in.Ref.Name}}
	in.Actor = unknownRequester
	if p.in.Requester != nil {
		in.Actor = *p.in.Requester
	}
	var summary *contract.PlanSummary
	if plan != nil {
		summary = &plan.Summary
		in.Plan = summary.PolicyJSON() // what the policy reads if the plan's JSON is not kept
		in.Fill.PlanName = strings.TrimSuffix(path.Base(plan.File), ".tfplan")
	}
	if p.in.Operation == lifecycle.OpProvision || p.in.Operation == lifecycle.OpDeploy {
		in.Fill.Diff, in.Fill.DeployedRevision, in.Fill.ConfigYAML = true, p.in.DeployedRevision, p.in.ConfigYAML
	}
	var d policy.Decision
	if err := quick(p.ctx, true, contract.ActAuthorize, in).Get(p.ctx, &d); err != nil {
		return &stepError{step: contract.Approval, err: err}
	}
	switch {
	case !d.Allow:
		return p.run(contract.Approval, false, func(workflow.Context) (string, error) {
			return "", temporal.NewNonRetryableApplicationError("denied by policy "+short(d.PolicyHash)+": "+d.Reason, ErrPolicyDenied, nil)
		})
	case d.Approval == nil:
		return nil
	}
	req := *d.Approval
	req.Count = max(req.Count, 1)
	return p.await(contract.ApprovalWait{Hash: hash, What: what, Plan: summary, Why: d.Reason, Approvers: req.Groups,
		Required: &req, Requester: p.in.Requester, PolicyHash: d.PolicyHash}, r.Wait())
}

// await stops the operation until w's plan is approved or rejected, or wait passes.
func (p *pipeline) await(w contract.ApprovalWait, wait time.Duration) error {
	hash := w.Hash
	return p.run(contract.Approval, false, func(ctx workflow.Context) (string, error) {
		now := workflow.Now(ctx)
		w.OpID, w.Attempt, w.Pipeline = p.in.OpID, p.in.Attempt, workflow.GetInfo(ctx).WorkflowExecution.ID
		w.Since, w.Deadline, w.Voids = now, now.Add(wait), p.approved
		if mr := p.progress.MR; mr != nil && mr.State == forge.StateOpen && !mr.NoChanges {
			w.MR = mr
		}
		// The UI shows details to everyone who can read: the plan and its hash are for approvers.
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("**Awaiting approval** by %s until %s\n\nApprovers see the plan with `slipway status %s`",
			w.Awaited(), stamp(w.Deadline), p.in.Ref))
		if p.in.ParentID != "" {
			_ = workflow.SignalExternalWorkflow(ctx, p.in.ParentID, "", contract.SignalAwaitingApproval, w).Get(ctx, nil)
		}
		p.announce(ctx, w)
		d, err := awaitDecision(ctx, w)
		if err != nil {
			return "", err
		}
		if d.Verb != contract.VerbApprove {
			return "", &notApprovedError{d: d}
		}
		p.approved = hash
		return fmt.Sprintf("plan %s approved by %s (%s)", short(hash), d.Actor, d.Source), nil
	})
}

// announce tells the open MR who must approve and how; anyone who can read the MR reads it, so
// it names neither the plan's hash nor its summary: approvers read those with slipway status.
func (p *pipeline) announce(ctx workflow.Context, w contract.ApprovalWait) {
	if w.MR == nil {
		return
	}
	body := fmt.Sprintf("**slipway: %s %s awaits approval** by %s, until %s.\n\nAn approver reads the plan and its hash with `slipway status %s`, then comments `/slipway approve <hash>` or `/slipway reject <reason>` here, or runs `slipway approve %s --plan <hash>`.",
		p.in.Operation, p.in.Ref, w.Awaited(), stamp(w.Deadline), p.in.Ref, p.in.Ref)
	// The key is a digest of the hash: the comment's hidden marker must not carry the hash either.
	in := contract.AnnounceInput{Ref: p.in.Ref, MR: w.MR.Branch, Body: body, Key: "approval-" + operationHash("announce", w.Hash)[:24]}
	// Best effort: the wait is recorded in the instance whether or not the comment lands.
	_ = workflow.ExecuteActivity(shortCtx(ctx), contract.ActAnnouncePlan, in).Get(ctx, nil)
}

// awaitDecision waits for a decision on w's plan, or its deadline.
func awaitDecision(ctx workflow.Context, w contract.ApprovalWait) (contract.ApprovalDecision, error) {
	ch := workflow.GetSignalChannel(ctx, contract.SignalApprovalDecision)
	tctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	timer := workflow.NewTimer(tctx, w.Deadline.Sub(workflow.Now(ctx)))
	for {
		var d contract.ApprovalDecision
		expired := false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(ch, func(c workflow.ReceiveChannel, more bool) { c.Receive(ctx, &d) })
		sel.AddFuture(timer, func(f workflow.Future) { expired = f.Get(ctx, nil) == nil })
		sel.Select(ctx)
		if err := ctx.Err(); err != nil {
			return d, err
		}
		if expired {
			return contract.ApprovalDecision{Verb: VerbExpired, Hash: w.Hash, At: workflow.Now(ctx)}, nil
		}
		if d.Hash == w.Hash { // a decision about a voided plan is stale
			return d, nil
		}
	}
}

// unapproved ends the pipeline at its approval: the MR it opened is closed, nothing else was
// changed, and the instance goes back to where it was.
func (p *pipeline) unapproved(na *notApprovedError) error {
	ctx, _ := workflow.NewDisconnectedContext(p.ctx)
	if mr := p.progress.MR; mr != nil && mr.State == forge.StateOpen && !mr.NoChanges {
		var closed forge.MergeRequest
		if err := workflow.ExecuteActivity(shortCtx(ctx), contract.ActCloseMR, *mr).Get(ctx, &closed); err == nil {
			p.progress.MR = &closed
		}
	}
	f := contract.Failure{Step: contract.Approval, Error: na.Error(), Type: contract.ErrNotApproved, Leftovers: []contract.Leftover{}, At: workflow.Now(ctx)}
	switch mr := p.progress.MR; {
	case mr != nil && mr.State == forge.StateOpen && !mr.NoChanges:
		f.Leftovers = append(f.Leftovers, contract.Leftover{Kind: "merge-request", ID: mr.ID,
			Detail: "could not be closed after the approval ended", Cleanup: "close it and delete its branch " + mr.Branch})
	case mr != nil && mr.State == forge.StateMerged:
		// Merged under an earlier approval whose plan went stale: main is ahead of what runs.
		f.Leftovers = append(f.Leftovers, contract.Leftover{Kind: "merged-config", ID: mr.ID,
			Detail:  fmt.Sprintf("the config merged as %s is on main but was not applied: the plan made again after its approval was not approved", short(mr.MergeSHA)),
			Cleanup: fmt.Sprintf("deploy %s again to plan and approve it, or revert the merge on main", p.in.Ref)})
	}
	return temporal.NewNonRetryableApplicationError(na.Error(), contract.ErrNotApproved, nil,
		contract.PipelineFailure{Failure: f, Progress: p.progress, Steps: p.steps, Decision: &na.d})
}

func asNotApproved(err error) *notApprovedError {
	var na *notApprovedError
	if errors.As(err, &na) {
		return na
	}
	return nil
}

// operationHash identifies an approval for an operation that has no terraform plan (archive):
// what it removes, at which revision.
func operationHash(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:])
}

// planOnMR plans a config change on the MR's head, before the merge, when an approval may be
// needed: the reviewer approves the plan of exactly what the MR holds, and nothing reaches main
// until then. The plan is applied after the merge (the merge leaves the instance's files as
// they are on the branch).
func (p *pipeline) planOnMR() error {
	r := p.rule()
	mr := p.progress.MR
	if r == nil || mr == nil || p.progress.Did(contract.MergeMR) {
		return nil
	}
	// Under the policy, a plan that replaces a stateful resource waits whatever the stack's rule says.
	stateful := p.policy && len(p.progress.Controls.Stateful) > 0
	if (r.Policy == "" || r.Policy == approval.Never) && !stateful {
		return nil
	}
	rev := mr.HeadSHA
	if mr.NoChanges || rev == "" {
		rev = mr.BaseSHA
	}
	return p.planApproved(contract.TerraformInput{Ref: p.in.Ref, OpID: p.in.OpID, Revision: rev}, "terraform plan of "+mr.ID)
}

// planApproved makes the plan that a later step applies, and waits for its approval.
func (p *pipeline) planApproved(in contract.TerraformInput, what string) error {
	if err := p.tfInit(in); err != nil {
		return err
	}
	plan, err := p.tfPlan(in)
	if err != nil {
		return err
	}
	p.progress.Plan = plan
	if err := p.approvePlan(plan, what); err != nil {
		return err
	}
	p.early = plan
	return nil
}

// approveRemoval waits for approval of archive, destroy or deprovision when the rule asks for
// it. Destroy and deprovision plan the destroy first, so the approval names the plan that runs.
func (p *pipeline) approveRemoval() error {
	r := p.rule()
	if r == nil {
		return nil
	}
	// Under the policy, destroy and deprovision always plan first: the policy reads that plan.
	if need, _ := r.Needs(p.in.Operation, nil); !need && !p.policy {
		return nil
	}
	names := p.in.Ref.Derived()
	if p.in.Operation == "archive" {
		what := fmt.Sprintf("archive: remove the app %s and its namespace %s; the config and the infrastructure stay", names.Application, names.Namespace)
		return p.approval(operationHash(string(p.in.Operation), p.in.Ref.String(), p.progress.Revision, names.Application), what, nil)
	}
	return p.planApproved(p.tfInput(true), fmt.Sprintf("%s: remove the app %s, then terraform destroy", p.in.Operation, names.Application))
}

// applyDestroyPlan applies the approved destroy plan rather than running a fresh destroy. A
// plan gone stale is made again and, being a new plan, approved again.
func (p *pipeline) applyDestroyPlan(in contract.TerraformInput) error {
	plan := p.early
	return p.run(contract.TFDestroy, true, func(ctx workflow.Context) (string, error) {
		var out contract.InfraOutput
		// Applying a destroy plan is the destroy: it runs under the destroy budget.
		actx, budget := p.tfCtx(ctx, "destroy")
		release, err := p.drawCapacity(ctx, contract.TFDestroy, "destroy")
		if err != nil {
			return "", err
		}
		defer release()
		err = workflow.ExecuteActivity(actx, contract.ActTerraformApply, contract.ApplyInput{Ref: p.in.Ref, Plan: *plan, Budget: budget}).Get(ctx, &out)
		note := ""
		if err != nil && errorType(err) == contract.ErrStalePlan {
			pctx, pbudget := p.tfCtx(ctx, "plan")
			in.Budget = pbudget
			if err = workflow.ExecuteActivity(pctx, contract.ActTerraformPlan, in).Get(ctx, plan); err == nil {
				p.progress.Plan = plan
				if err = p.approvePlan(plan, string(p.in.Operation)+": terraform destroy, planned again after a stale plan"); err == nil {
					err = workflow.ExecuteActivity(actx, contract.ActTerraformApply, contract.ApplyInput{Ref: p.in.Ref, Plan: *plan, Budget: budget}).Get(ctx, &out)
				}
				note = "; planned again after a stale plan"
			}
		}
		if err != nil {
			return "", err
		}
		p.progress.Infra = &out
		return fmt.Sprintf("approved destroy plan %s applied: %d resource(s) left in state%s", short(plan.SHA256), len(out.Resources), note), nil
	})
}
