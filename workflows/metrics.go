package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// Metric names as the SDK's handler is given them; Prometheus adds _total to the counters and
// _seconds to the timer (internal/metrics lists the exported names).
const (
	metricOperationsStarted  = "slipway_operations_started"
	metricOperationsFinished = "slipway_operations_finished"
	metricStepDuration       = "slipway_step_duration"
)

// Operation outcomes, per attempt: a failed attempt counts failed and its successful retry
// succeeded too; rejected is an approval refused.
const (
	outcomeSucceeded = "succeeded"
	outcomeFailed    = "failed"
	outcomeRejected  = "rejected"
)

// The pipeline's metrics go through the SDK's handler, which drops them while a history
// replays: each is counted once, by the worker that made the decision, and no command changes.
// Labels stay bounded: the operation kind, the stack and the step.
func (p *pipeline) metricTags() map[string]string {
	stack := p.in.Stack
	if stack == "" {
		stack = "unknown"
	}
	return map[string]string{"kind": string(p.in.Operation), "stack": stack}
}

// countStarted counts the operation once, at its first attempt (a retry is the same operation).
func (p *pipeline) countStarted() {
	if p.in.Attempt <= 1 {
		workflow.GetMetricsHandler(p.ctx).WithTags(p.metricTags()).Counter(metricOperationsStarted).Inc(1)
	}
}

func (p *pipeline) countFinished(outcome string) {
	tags := p.metricTags()
	tags["outcome"] = outcome
	workflow.GetMetricsHandler(p.ctx).WithTags(tags).Counter(metricOperationsFinished).Inc(1)
}

func (p *pipeline) recordStep(rec contract.StepRecord) {
	workflow.GetMetricsHandler(p.ctx).WithTags(map[string]string{"op": string(p.in.Operation), "step": rec.Name,
		"outcome": string(rec.Status)}).Timer(metricStepDuration).Record(max(rec.EndedAt.Sub(rec.StartedAt), time.Duration(0)))
}
