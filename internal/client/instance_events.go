package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/observe"
)

// InstanceEvent is one entry of an instance's log, read from its workflow history: the history
// is the event source, so the log needs no store of its own and never disagrees with it.
type InstanceEvent struct {
	At        time.Time `json:"at"`
	Run       string    `json:"run"`
	Kind      string    `json:"kind"` // run, requested, state, pipeline, step, observed, result, drift, gate, notified, continued, audit
	Operation string    `json:"operation,omitempty"`
	Step      string    `json:"step,omitempty"`
	Status    string    `json:"status,omitempty"`
	Actor     string    `json:"actor,omitempty"` // the attested actor of a request
	Note      string    `json:"note,omitempty"`  // what the request says of itself (--actor): free text
	Text      string    `json:"text"`
	// Audit is the decision an audit event records, for `slipway audit`, and auditRequestID the
	// ID of the update it decided.
	Audit          *contract.AuditRecord `json:"-"`
	auditRequestID string
	// auditLogged: the record came from RecordAudit's marker, so the durable audit log holds it.
	auditLogged bool
}

// ErrStopEvents, returned by an InstanceEvents callback, ends the read without an error.
var ErrStopEvents = errors.New("stop reading events")

// InstanceEvents calls fn with each event of the instance, oldest first, from its first run on,
// following continue-as-new. With follow it then waits for new events by long-polling the
// history (no polling loop) until ctx ends or fn returns ErrStopEvents.
func (c *Client) InstanceEvents(ctx context.Context, ref contract.Ref, follow bool, fn func(InstanceEvent) error) error {
	if c.Payloads == nil {
		return errors.New("events: this client has no payload converter to read history with")
	}
	id := contract.InstanceWorkflowID(ref)
	d, err := c.Temporal.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return translate(ref.String(), err)
	}
	r := eventReader{dc: c.Payloads, updates: map[string]string{}, latest: map[string]string{}, steps: map[string]bool{}}
	run := d.GetWorkflowExecutionInfo().GetFirstRunId()
	for run != "" {
		r.run, run = run, ""
		it := c.Temporal.GetWorkflowHistory(ctx, id, r.run, follow, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				return translate(ref.String(), err)
			}
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				run = a.GetNewExecutionRunId()
			}
			for _, out := range r.read(ev) {
				if err := fn(out); errors.Is(err, ErrStopEvents) {
					return nil
				} else if err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// eventReader turns history events into log entries, remembering what later events refer to.
type eventReader struct {
	dc      converter.DataConverter
	run     string
	state   string
	updates map[string]string // update ID -> update name
	// latest is the ID of the update of each name accepted last: an update's audit record is
	// written in the workflow task that accepts it, so it belongs to that one.
	latest map[string]string
	steps  map[string]bool // steps already logged, by operation, name, attempt and status
	opID   string          // the operation of the pipeline started last
	// verifies is set once this run is known to verify its requests (attest.ChangeVerifiedRequests).
	verifies bool
}

// marker reads the run's version of request verification and the instance's audit records.
func (r *eventReader) marker(e InstanceEvent, a *historypb.MarkerRecordedEventAttributes) []InstanceEvent {
	switch a.GetMarkerName() {
	case "Version":
		var id string
		r.first(a.GetDetails()["change-id"], &id)
		if id == attest.ChangeVerifiedRequests {
			r.verifies = true
		}
	case "SideEffect", "LocalActivity":
		var rec contract.AuditRecord
		if a.GetMarkerName() == "LocalActivity" {
			// Only RecordAudit's markers are records: their result is the record it wrote.
			var la struct{ ActivityType string }
			if r.first(a.GetDetails()["data"], &la); la.ActivityType != contract.ActRecordAudit {
				return nil
			}
			r.first(a.GetDetails()["result"], &rec)
			e.auditLogged = true
		} else {
			r.first(a.GetDetails()["data"], &rec)
		}
		if rec.Decision == "" {
			return nil
		}
		e.Kind, e.Status, e.Operation, e.Audit = "audit", rec.Decision, rec.Request, &rec
		if name, ok := strings.CutPrefix(rec.Request, "update "); ok {
			e.auditRequestID = r.latest[name]
		}
		if rec.Actor != nil {
			e.Actor = actorName(*rec.Actor)
		}
		e.Text = rec.Request + " " + rec.Decision
		if rec.Workflow != "" {
			e.Text += " (sent to " + rec.Workflow + ")"
		}
		if e.Actor != "" {
			e.Text += " for " + e.Actor
		}
		if rec.PolicyHash != "" {
			e.Text += " by policy " + contract.ShortSHA(rec.PolicyHash)
		}
		if rec.Reason != "" {
			e.Text += ": " + rec.Reason
		}
		return []InstanceEvent{e}
	}
	return nil
}

// actorName is how the log names a verified actor.
func actorName(a identity.Actor) string {
	if a.Name != "" {
		return a.Name
	}
	return a.Subject
}

func (r *eventReader) read(ev *historypb.HistoryEvent) []InstanceEvent {
	e := InstanceEvent{At: ev.GetEventTime().AsTime(), Run: r.run}
	switch {
	case ev.GetWorkflowExecutionStartedEventAttributes() != nil:
		r.verifies = false
		e.Kind, e.Text = "run", "run "+r.run+" started"
	case ev.GetWorkflowExecutionUpdateAcceptedEventAttributes() != nil:
		a := ev.GetWorkflowExecutionUpdateAcceptedEventAttributes().GetAcceptedRequest()
		name := a.GetInput().GetName()
		r.updates[a.GetMeta().GetUpdateId()] = name
		r.latest[name] = a.GetMeta().GetUpdateId()
		var req struct{ Actor, Note, Reason, Name string }
		r.first(a.GetInput().GetArgs(), &req)
		// Who asked is the attested actor; what a request says of itself is only a note.
		note := req.Note
		if note == "" {
			note = req.Actor
		}
		who := orDash(note) + " (unattested)"
		if actor, ok := attest.Claimed(a.GetInput().GetHeader().GetFields(), r.dc, attest.KindUpdate); ok {
			e.Actor = actorName(actor)
			who = e.Actor
			if note != "" && note != who {
				who += " (note: " + note + ")"
			}
		}
		e.Kind, e.Operation, e.Note = "requested", name, note
		e.Text = fmt.Sprintf("%s requested by %s", name, who)
		if req.Name != "" {
			e.Text = fmt.Sprintf("%s %s requested by %s", name, req.Name, who)
		}
		if req.Reason != "" {
			e.Text += ": " + req.Reason
		}
	case ev.GetWorkflowExecutionUpdateCompletedEventAttributes() != nil:
		a := ev.GetWorkflowExecutionUpdateCompletedEventAttributes()
		e.Kind, e.Operation = "result", r.updates[a.GetMeta().GetUpdateId()]
		if f := a.GetOutcome().GetFailure(); f != nil {
			if f.GetApplicationFailureInfo().GetType() == attest.ErrorType {
				e.Kind = "audit"
			}
			converter.DecodeCommonFailureAttributes(r.dc, f) // the message is sealed in history
			e.Status, e.Text = "refused", e.Operation+" refused: "+f.GetMessage()
			break
		}
		if e.Operation == contract.UpdateCheckDrift {
			var out contract.DriftOutput
			r.first(a.GetOutcome().GetSuccess(), &out)
			e.Kind, e.Status, e.Text = "drift", "in sync", "drift check: in sync with the deployed revision"
			if out.Drifted {
				e.Status, e.Text = "drifted", "drift check: drifted: "+strings.Join(out.Resources(), "; ")
			}
			break
		}
		if e.Operation == contract.UpdateGateAdd || e.Operation == contract.UpdateGateRemove || e.Operation == contract.UpdateCancel {
			var gs []contract.Gate
			r.first(a.GetOutcome().GetSuccess(), &gs)
			names := make([]string, 0, len(gs))
			for _, g := range gs {
				names = append(names, g.Name)
			}
			e.Kind, e.Status, e.Text = "gate", "done", fmt.Sprintf("%s done; gates now: %s", e.Operation, orDash(strings.Join(names, ", ")))
			break
		}
		if e.Operation == contract.UpdateApprove || e.Operation == contract.UpdateReject {
			var res contract.ApprovalResult
			r.first(a.GetOutcome().GetSuccess(), &res)
			e.Kind, e.Status = "approval", contract.Past(e.Operation)
			e.Text = fmt.Sprintf("plan %s of %s %s %s", contract.ShortSHA(res.Hash), res.Operation, res.OpID, e.Status)
			break
		}
		if e.Operation == contract.UpdateRefresh {
			var st contract.Status
			r.first(a.GetOutcome().GetSuccess(), &st)
			e.Status, e.Text = "done", "refresh: "+st.Refresh
			break
		}
		var res contract.OperationResult
		r.first(a.GetOutcome().GetSuccess(), &res)
		e.Status, e.Text = res.Result, fmt.Sprintf("%s %s: %s", e.Operation, orDash(res.Result), res.State)
		if res.Failure != nil {
			e.Text += fmt.Sprintf(" (step %s: %s)", res.Failure.Step, res.Failure.Error)
		}
	case ev.GetUpsertWorkflowSearchAttributesEventAttributes() != nil:
		p := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()[contract.SAInstanceState.GetName()]
		var st string
		if p == nil || converter.GetDefaultDataConverter().FromPayload(p, &st) != nil || st == r.state {
			return nil
		}
		r.state = st
		e.Kind, e.Status, e.Text = "state", st, "state "+st
	case ev.GetStartChildWorkflowExecutionInitiatedEventAttributes().GetWorkflowType().GetName() == contract.NotifyWorkflowName:
		a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes()
		var in contract.NotifyRequest
		r.first(a.GetInput(), &in)
		n := in.Event
		e.Kind, e.Status = "notified", string(n.Kind)
		e.Text = fmt.Sprintf("notification %s sent to %s (%s): %s", n.Kind, strings.Join(in.Sinks, ", "), a.GetWorkflowId(), n.Message)
	case ev.GetStartChildWorkflowExecutionInitiatedEventAttributes() != nil:
		a := ev.GetStartChildWorkflowExecutionInitiatedEventAttributes()
		var in contract.PipelineInput
		r.first(a.GetInput(), &in)
		r.opID = in.OpID
		e.Kind, e.Operation, e.Text = "pipeline", string(in.Operation), "pipeline "+a.GetWorkflowId()+" started"
	case ev.GetWorkflowExecutionSignaledEventAttributes() != nil:
		a := ev.GetWorkflowExecutionSignaledEventAttributes()
		// In a run that verifies its requests, a signal without an attestation was refused (the
		// refusal follows as an audit entry): it changed nothing, so it is no step or approval.
		if _, ok := attest.Claimed(a.GetHeader().GetFields(), r.dc, attest.KindSignal); r.verifies && !ok {
			return nil
		}
		return r.signal(e, a)
	case ev.GetMarkerRecordedEventAttributes() != nil:
		return r.marker(e, ev.GetMarkerRecordedEventAttributes())
	case ev.GetChildWorkflowExecutionCompletedEventAttributes() != nil:
		// A pipeline's last step signal is dropped by the server once the pipeline has closed;
		// its result holds every step, so the log takes the ones it has not seen from there.
		var res contract.PipelineResult
		r.first(ev.GetChildWorkflowExecutionCompletedEventAttributes().GetResult(), &res)
		return r.pipelineSteps(e, res.Steps)
	case ev.GetChildWorkflowExecutionFailedEventAttributes() != nil:
		var pf contract.PipelineFailure
		r.first(ev.GetChildWorkflowExecutionFailedEventAttributes().GetFailure().GetCause().GetApplicationFailureInfo().GetDetails(), &pf)
		if pf.Steps == nil {
			r.first(ev.GetChildWorkflowExecutionFailedEventAttributes().GetFailure().GetApplicationFailureInfo().GetDetails(), &pf)
		}
		return r.pipelineSteps(e, pf.Steps)
	case ev.GetWorkflowExecutionContinuedAsNewEventAttributes() != nil:
		e.Kind, e.Text = "continued", "continued as new in run "+ev.GetWorkflowExecutionContinuedAsNewEventAttributes().GetNewExecutionRunId()
	default:
		return nil
	}
	return []InstanceEvent{e}
}

func (r *eventReader) signal(e InstanceEvent, a *historypb.WorkflowExecutionSignaledEventAttributes) []InstanceEvent {
	switch a.GetSignalName() {
	case contract.SignalStep:
		var se contract.StepEvent
		r.first(a.GetInput(), &se)
		r.opID = se.OpID
		return r.pipelineSteps(e, append(se.Ended, se.Step))
	case contract.SignalAwaitingApproval:
		var w contract.ApprovalWait
		r.first(a.GetInput(), &w)
		e.Kind, e.Status = "approval", "awaiting"
		// Anyone who reads the instance reads its events: they say who must approve, not the plan.
		e.Text = fmt.Sprintf("awaiting approval by %s until %s", w.Awaited(), w.Deadline.UTC().Format(time.RFC3339))
		if w.Voids != "" {
			e.Text += "; it voids an earlier approval: a plan made again needs its own"
		}
	case contract.SignalStepRetrying:
		var sr contract.StepRetry
		r.first(a.GetInput(), &sr)
		e.Kind, e.Operation, e.Status = "step", sr.Operation, "Retrying"
		e.Text = fmt.Sprintf("step %s Retrying: attempt %d", sr.Activity, sr.Attempt)
		if sr.LastError != "" {
			e.Text += ": " + sr.LastError
		}
	case contract.SignalGateCleared:
		var w contract.ReadyWatch
		r.first(a.GetInput(), &w)
		e.Kind, e.Status, e.Text = "gate", "cleared", fmt.Sprintf("gate %s cleared: %s is Ready", w.Gate, w.Workflow)
	case contract.SignalObserved:
		var obs contract.Observation
		r.first(a.GetInput(), &obs)
		running := observe.Running(obs.App, obs.At)
		if obs.Stale {
			running = observe.StaleRunning(time.Time{}, obs.At)
		}
		e.Kind, e.Status = "observed", string(running.Status)+"/"+running.Reason
		e.Text = "observed Running " + e.Status + " by " + obs.Observer
	default:
		return nil
	}
	return []InstanceEvent{e}
}

// pipelineSteps logs the steps not logged yet.
func (r *eventReader) pipelineSteps(e InstanceEvent, recs []contract.StepRecord) []InstanceEvent {
	var out []InstanceEvent
	for _, s := range recs {
		key := fmt.Sprintf("%s/%s/%d/%s", r.opID, s.Name, s.Attempt, s.Status)
		if r.steps[key] {
			continue
		}
		r.steps[key] = true
		e.Kind, e.Step, e.Status = "step", s.Name, s.Status
		e.Text = fmt.Sprintf("step %s %s (attempt %d)", s.Name, s.Status, s.Attempt)
		if msg := s.Error + s.Detail; msg != "" {
			e.Text += ": " + msg
		}
		out = append(out, e)
	}
	return out
}

// first decodes the first payload into v; an unreadable one leaves v as it was.
func (r *eventReader) first(ps *commonpb.Payloads, v any) {
	if len(ps.GetPayloads()) > 0 {
		_ = r.dc.FromPayload(ps.GetPayloads()[0], v)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
