package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// What the Temporal UI shows of each workflow besides its history: a fixed one-line summary
// set at start, and current details that follow the running step. Neither is a command, so
// both are safe for running histories.

// pipelineSummary is a pipeline's static summary: what it does, to what, from where.
func pipelineSummary(ref contract.Ref, op *contract.Operation) string {
	s := fmt.Sprintf("%s %s from %s (operation %s, attempt %d", op.Kind, ref, op.From, op.ID, op.Attempt)
	if op.ConfigYAML != "" {
		s += ", new config"
	}
	return s + ")"
}

// stepDetails is a pipeline's current details while a step runs or after it ended.
func stepDetails(in contract.PipelineInput, rec contract.StepRecord) string {
	return fmt.Sprintf("%s %s: step %s %s (attempt %d) since %s", in.Operation, in.Ref, rec.Name, rec.Status,
		rec.Attempt, stamp(rec.StartedAt))
}

// details is the instance's current details: the running step, the failure, or how it was last seen.
func (e *entity) details() string {
	op := e.s.Current
	switch {
	case e.s.Approval != nil:
		w := e.s.Approval
		return fmt.Sprintf("%s: %s %s awaits approval by %s until %s (approvers see the plan with slipway status %s)",
			e.s.State, op.Kind, op.ID, w.Awaited(), stamp(w.Deadline), e.s.Ref)
	case e.retryingNow() != nil:
		r := e.retryingNow()
		return fmt.Sprintf("%s: %s %s Retrying step %s (attempt %d): %s", e.s.State, op.Kind, op.ID, r.Step, r.Attempt, r.LastError)
	case op != nil && op.Result == contract.ResultRunning && op.Step != "":
		line := fmt.Sprintf("%s: %s %s at step %s (attempt %d)", e.s.State, op.Kind, op.ID, op.Step, op.Attempt)
		if n := len(op.Steps); n > 0 && op.Steps[n-1].Status == contract.StepRunning && op.Steps[n-1].Detail != "" {
			line += ": " + op.Steps[n-1].Detail // such as waiting for a capacity budget
		}
		return line
	case op != nil && op.Result == contract.ResultRunning:
		return fmt.Sprintf("%s: %s %s starting (attempt %d)", e.s.State, op.Kind, op.ID, op.Attempt)
	case e.s.State.Failed() && op != nil && op.Failure != nil:
		return fmt.Sprintf("%s at step %s: %s", e.s.State, op.Failure.Step, op.Failure.Error)
	}
	ready := e.condition(lifecycle.CondReady)
	s := fmt.Sprintf("%s; Ready %s", e.s.State, ready.Status)
	if ready.Reason != "" {
		s += " (" + ready.Reason + ")"
	}
	if !ready.ObservedAt.IsZero() {
		s += " as of " + stamp(ready.ObservedAt)
	}
	return s
}

func (e *entity) showDetails(ctx workflow.Context) { workflow.SetCurrentDetails(ctx, e.details()) }

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
