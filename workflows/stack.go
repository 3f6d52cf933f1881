package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/internal/policy"
)

// StackWorkflow runs one platform decision about a stack's releases (cut, channel) or reads them.
// The policy decides on the verified starter like any fleet-wide request (tenant "*": only
// platform admins); a decision is written to the audit log, allowed or denied, and the activity
// records it in the GitOps repository through slipway's own MR.
func StackWorkflow(ctx workflow.Context, req contract.StackRequest) (contract.StackResult, error) {
	actor, ok := attest.Verified(ctx)
	op := "stack"
	if req.Op == contract.StackOpReleases {
		op = "read"
	}
	in := policy.Input{Operation: op, Tenant: "*", Name: req.Stack, Request: req}
	rec := contract.AuditRecord{At: workflow.Now(ctx), Request: "stack " + req.Op + " " + req.Stack + " " + req.Version + " " + req.Channel,
		Workflow: workflow.GetInfo(ctx).WorkflowExecution.ID, RequestID: req.ID}
	if ok {
		in.Actor, rec.Actor = actor, &actor
		req.CutBy = actor.String()
	}
	var d policy.Decision
	if err := quick(ctx, true, contract.ActAuthorize, in).Get(ctx, &d); err != nil {
		return contract.StackResult{}, err
	}
	rec.PolicyHash, rec.Reason, rec.Decision = d.PolicyHash, d.Reason, contract.AuditAllowed
	if !d.Allow {
		rec.Decision = contract.AuditDenied
	}
	if op != "read" {
		stackAudit(ctx, req.Stack, rec)
	}
	if !d.Allow {
		return contract.StackResult{}, temporal.NewNonRetryableApplicationError("denied by policy "+shortHash(d.PolicyHash)+": "+d.Reason, ErrPolicyDenied, nil)
	}
	var out contract.StackResult
	err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActStack, req).Get(ctx, &out)
	if err == nil && req.Op == contract.StackOpDeadline && req.Deadline != nil {
		notifyWaves(ctx, req.Stack, out.MergeSHA, *req.Deadline)
	}
	return out, err
}

// notifyWaves tells each wave's tenant, through the sinks, which of its instances move to the
// deadline's release and at which window opening, ahead of it. Only a deadline (an op that did
// not exist before) reaches it, so the histories of the other stack requests replay unchanged.
func notifyWaves(ctx workflow.Context, stack, merge string, d contract.StackDeadline) {
	for i, w := range d.Waves {
		id := contract.DeadlineWaveRollout(merge, i+1)
		startNotify(ctx, notify.Event{ID: "stack/" + stack + "/" + id, Kind: notify.KindUpgradePlanned, Tenant: w.Tenant, Rollout: id,
			Message: fmt.Sprintf("%s: upgrade to %s@%s planned in the change window opening at %s (rollout %s), before the deadline %s",
				strings.Join(w.Instances, ", "), stack, d.Min, w.At.Format(time.RFC3339), id, d.By.Format(time.RFC3339)),
			Details: map[string]string{"release": stack + "@" + d.Min, "opens": w.At.Format(time.RFC3339), "deadline": d.By.Format(time.RFC3339),
				"instances": strings.Join(w.Instances, ",")},
			At: workflow.Now(ctx)})
	}
}

// stackAudit writes a stack decision to the durable audit log (under tenant "*"); history keeps it too.
func stackAudit(ctx workflow.Context, stack string, rec contract.AuditRecord) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: shortTimeout,
		ScheduleToCloseTimeout: time.Minute, RetryPolicy: retryPolicy()})
	err := workflow.ExecuteLocalActivity(lctx, contract.ActRecordAudit, contract.AuditWrite{Ref: contract.Ref{Tenant: "*", Name: stack}, Record: rec}).Get(ctx, nil)
	if err != nil {
		workflow.GetLogger(ctx).Error("the durable audit log refused a stack decision; it stays in history", "error", err)
		_ = workflow.SideEffect(ctx, func(workflow.Context) any { return rec }).Get(nil)
	}
}
