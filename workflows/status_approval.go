package workflows

import (
	"slices"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
)

// mayApprove reports whether actor satisfies what w waits for: a member of a required group or
// the person a "user:NAME" entry names; for a wait from before the policy, an approver by name.
func mayApprove(actor identity.Actor, w *contract.ApprovalWait) bool {
	if actor.IsZero() {
		return false
	}
	if r := w.Required; r != nil {
		return actor.InGroup(r.Groups...) || (actor.Kind == identity.Person && slices.Contains(r.Groups, "user:"+actor.Name))
	}
	return len(w.Approvers) > 0 && approval.Rule{Approvers: w.Approvers}.Allows(actor.Name)
}

// redactApprovals keeps the plan, its hash and summary out of a status read by someone who may
// not approve: the wait says who must approve and until when, the log who decided, not on what.
func redactApprovals(st *contract.Status) {
	if w := st.Approval; w != nil {
		st.Approval = &contract.ApprovalWait{OpID: w.OpID, Attempt: w.Attempt, Approvers: w.Approvers, Required: w.Required,
			Since: w.Since, Deadline: w.Deadline, MR: w.MR, Redacted: true}
		if op := st.Operation; op != nil {
			// The waiting operation's plan is what awaits approval: its summary is for approvers.
			redacted := *op
			redacted.Plan, redacted.Steps = nil, make([]contract.StepRecord, len(op.Steps))
			for i, s := range op.Steps {
				if s.Name == contract.TFPlan || s.Name == contract.Approval {
					s.Detail = ""
				}
				redacted.Steps[i] = s
			}
			st.Operation = &redacted
		}
	}
	if len(st.ApprovalLog) > 0 {
		log := make([]contract.ApprovalRecord, len(st.ApprovalLog))
		for i, r := range st.ApprovalLog {
			r.Hash = ""
			if r.Event == approvalAwaiting || r.Event == approvalVoided {
				r.Reason = "" // the policy's reason names what the plan deletes or replaces
			}
			log[i] = r
		}
		st.ApprovalLog = log
	}
}
