package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
)

// SignalRefusal carries a refusal a pipeline heard to its instance, which records it.
const SignalRefusal = "refusal"

// Audit decisions.
const (
	AuditRefused = "refused" // the request carried no valid attestation: nothing changed
)

// durableAuditVersion is the attest.ChangeVerifiedRequests version from which runs write their
// audit records to the durable audit log.
const durableAuditVersion = 3

// auditKept bounds the audit records an instance keeps in its state.
const auditKept = 200

// RelayedRefusal is a refusal a pipeline heard, relayed to its instance.
type RelayedRefusal struct {
	Workflow string         `json:"workflow"`
	Refusal  attest.Refusal `json:"refusal"`
}

// receiveRefusals records the signals refused to the instance itself and those its pipelines relay.
func (e *entity) receiveRefusals(ctx workflow.Context) {
	own := workflow.GetSignalChannel(ctx, attest.SignalRefused)
	relayed := workflow.GetSignalChannel(ctx, SignalRefusal)
	for {
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(own, func(c workflow.ReceiveChannel, _ bool) {
			var r attest.Refusal
			c.Receive(ctx, &r)
			e.audit(ctx, contract.AuditRecord{At: r.At, Decision: AuditRefused, Request: "signal " + r.Signal, Reason: r.Why})
		})
		sel.AddReceive(relayed, func(c workflow.ReceiveChannel, _ bool) {
			var r RelayedRefusal
			c.Receive(ctx, &r)
			e.audit(ctx, contract.AuditRecord{At: r.Refusal.At, Decision: AuditRefused, Request: "signal " + r.Refusal.Signal,
				Workflow: r.Workflow, Reason: r.Refusal.Why})
		})
		sel.Select(ctx)
	}
}

// audit keeps rec (the newest auditKept), writes it to the durable audit log and to history as
// a marker, where `slipway events` reads it: one marker either way, the local activity's when
// the log took it, else a side effect's (the record is never lost, only its durable copy).
func (e *entity) audit(ctx workflow.Context, rec contract.AuditRecord) {
	e.s.Audit = append(e.s.Audit, rec)
	if n := len(e.s.Audit); n > auditKept {
		e.s.Audit = e.s.Audit[n-auditKept:]
	}
	if attest.RunVersion(ctx) >= durableAuditVersion {
		if rec.RequestID == "" {
			rec.RequestID = attest.RequestID(ctx) // the log has no history to find it in
		}
		// A minute, not the transient budget: a store that is down must not hold the request that long.
		lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: shortTimeout,
			ScheduleToCloseTimeout: time.Minute, RetryPolicy: retryPolicy()})
		err := workflow.ExecuteLocalActivity(lctx, contract.ActRecordAudit, contract.AuditWrite{Ref: e.s.Ref, Record: rec}).Get(ctx, nil)
		if err == nil {
			return
		}
		workflow.GetLogger(ctx).Error("the durable audit log refused a record; it stays in history", "error", err)
	}
	_ = workflow.SideEffect(ctx, func(workflow.Context) any { return rec }).Get(nil)
}

// relayRefusals tells the instance of each signal refused to this pipeline (a forged approval).
func (p *pipeline) relayRefusals(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, attest.SignalRefused)
	for {
		var r attest.Refusal
		ch.Receive(ctx, &r)
		workflow.GetLogger(ctx).Warn("signal refused", "signal", r.Signal, "why", r.Why)
		if p.in.ParentID == "" {
			continue
		}
		_ = workflow.SignalExternalWorkflow(ctx, p.in.ParentID, "", SignalRefusal,
			RelayedRefusal{Workflow: workflow.GetInfo(ctx).WorkflowExecution.ID, Refusal: r}).Get(ctx, nil)
	}
}
