package workflows

import (
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/notify"
)

// notifyDeadline is how long a sink is retried before its delivery is given up and recorded so.
const notifyDeadline = time.Hour

// NotifyResult is the record of one notification: the event and what each sink made of it.
type NotifyResult struct {
	Event      notify.Event            `json:"event"`
	Deliveries []contract.SinkDelivery `json:"deliveries"`
}

// NotifyWorkflow delivers an event to the sinks that want it, each with its own retries and
// deadline. It never fails: a sink that refuses or stays down is recorded as undelivered.
func NotifyWorkflow(ctx workflow.Context, in contract.NotifyRequest) (NotifyResult, error) {
	res := NotifyResult{Event: in.Event, Deliveries: []contract.SinkDelivery{}}
	futures := make([]workflow.Future, len(in.Sinks))
	for i, s := range in.Sinks {
		futures[i] = workflow.ExecuteActivity(notifyCtx(ctx), contract.ActDeliverEvent, contract.DeliverInput{Sink: s, Event: in.Event})
	}
	for i, f := range futures {
		d := contract.SinkDelivery{Sink: in.Sinks[i], Delivered: true}
		if err := f.Get(ctx, nil); err != nil {
			d.Delivered, d.Error = false, errorMessage(err)
		}
		res.Deliveries = append(res.Deliveries, d)
	}
	return res, nil
}

func notifyCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: notifyDeadline,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2,
			MaximumInterval: 5 * time.Minute, NonRetryableErrorTypes: []string{contract.ErrNotifyRefused}},
	})
}

// startNotify asks this worker's sinks which want ev (a local activity: one marker, so a worker
// without sinks pays next to nothing), then starts the delivery as a workflow of its own and
// waits only until it started: a slow or failing sink never holds up the lifecycle. The ID is the
// event's, so a transition is notified once even if this code runs again.
func startNotify(ctx workflow.Context, ev notify.Event) {
	var sinks []string
	if err := quick(ctx, true, contract.ActMatchSinks, ev).Get(ctx, &sinks); err != nil {
		workflow.GetLogger(ctx).Warn("notification sinks not read", "event", ev.ID, "error", err)
		return
	}
	if len(sinks) == 0 {
		return
	}
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            "notify/" + ev.ID,
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		StaticSummary:         fmt.Sprintf("notify %s: %s", ev.Kind, ev.Message),
	})
	f := workflow.ExecuteChildWorkflow(cctx, contract.NotifyWorkflowName, contract.NotifyRequest{Event: ev, Sinks: sinks})
	if err := f.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("notification not started", "event", ev.ID, "error", err)
	}
}

// notify tells the sinks about a transition of the instance. fill adds what the kind carries.
func (e *entity) notify(ctx workflow.Context, kind notify.Kind, message string, fill func(*notify.Event)) {
	if !notifies(ctx) {
		return
	}
	e.s.Notices++
	ev := notify.Event{
		ID:   fmt.Sprintf("%s/%s/%s-%d", contract.InstanceWorkflowID(e.s.Ref), e.s.Epoch, strings.ToLower(string(kind)), e.s.Notices),
		Kind: kind, Tenant: e.s.Ref.Tenant, Instance: e.s.Ref.String(), State: string(e.s.State),
		Message: message, At: workflow.Now(ctx),
	}
	if op := e.s.Current; op != nil {
		ev.Operation, ev.Revision = string(op.Kind), op.Progress.Revision
		if mr := op.Progress.MR; mr != nil && !mr.NoChanges {
			ev.MR = mr
		}
		switch {
		case op.Plan != nil:
			ev.Plan = planLine(*op.Plan)
		case op.Progress.Plan != nil:
			ev.Plan = planLine(op.Progress.Plan.Summary)
		}
	}
	if fill != nil {
		fill(&ev)
	}
	startNotify(ctx, ev)
}

// noticeTransitions notifies Ready and Drifted as they turn True.
func (e *entity) noticeTransitions(ctx workflow.Context) {
	ready := e.condition("Ready")
	if ready.Status == "True" && len(e.s.ReadyWatchers) > 0 {
		e.tellReadyWatchers(ctx)
	}
	if ready.Status == "True" && e.lastReady != "True" {
		e.notify(ctx, notify.KindReady, fmt.Sprintf("%s is Ready (%s)", e.s.Ref, ready.Reason), func(ev *notify.Event) {
			ev.Revision = e.s.DeployedRevision
		})
	}
	e.lastReady = string(ready.Status)
	drifted := e.s.Drift != nil && e.s.Drift.Drifted
	if drifted && !e.lastDrifted {
		d := e.s.Drift
		e.notify(ctx, notify.KindDrifted, fmt.Sprintf("%s drifted from revision %s: %s", e.s.Ref, short(d.Revision), strings.Join(d.Resources, "; ")),
			func(ev *notify.Event) { ev.Revision, ev.Operation, ev.MR, ev.Plan = d.Revision, "", nil, "" })
	}
	e.lastDrifted = drifted
}
