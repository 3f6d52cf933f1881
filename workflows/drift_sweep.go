package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/steps"
)

// defaultDriftConcurrency bounds the checks a sweep runs at once: each is a terraform plan.
const defaultDriftConcurrency = 4

// DriftSweepResult is what one sweep found, instance by instance.
type DriftSweepResult struct {
	Checked   int                         `json:"checked"`
	Drifted   int                         `json:"drifted"`
	Instances []steps.DriftInstanceOutput `json:"instances"`
}

// DriftSweepWorkflow checks every Deployed instance in scope for drift, a few at a time; a
// Temporal Schedule starts it (slipway drift schedule). Each instance runs its own check, so a
// check never overlaps an operation: a busy instance is reported busy and checked next time.
func DriftSweepWorkflow(ctx workflow.Context, scope steps.DriftScope) (DriftSweepResult, error) {
	var listed []steps.ListedInstance
	if err := workflow.ExecuteActivity(inspectCtx(ctx), steps.ActListDeployed, scope).Get(ctx, &listed); err != nil {
		return DriftSweepResult{}, err
	}
	limit := scope.Concurrency
	if limit <= 0 {
		limit = defaultDriftConcurrency
	}
	res := DriftSweepResult{Instances: make([]steps.DriftInstanceOutput, len(listed))}
	sweep := workflow.GetInfo(ctx).WorkflowExecution.ID
	inFlight := 0
	for i, li := range listed {
		if err := workflow.Await(ctx, func() bool { return inFlight < limit }); err != nil {
			return res, err
		}
		inFlight++
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer func() { inFlight-- }()
			in := steps.DriftInstanceInput{Ref: li.Ref, Sweep: sweep, Remediate: scope.Remediate}
			out := &res.Instances[i]
			if err := workflow.ExecuteActivity(driftCtx(ctx), steps.ActDriftInstance, in).Get(ctx, out); err != nil {
				*out = steps.DriftInstanceOutput{Ref: li.Ref, Outcome: steps.DriftRefused, Message: errorMessage(err)}
			}
		})
	}
	if err := workflow.Await(ctx, func() bool { return inFlight == 0 }); err != nil {
		return res, err
	}
	for _, o := range res.Instances {
		res.Checked++
		if o.Outcome == steps.DriftFound || o.Outcome == steps.DriftRemediated {
			res.Drifted++
		}
	}
	return res, nil
}

// driftCtx waits for one instance's check: a terraform plan, heartbeating.
func driftCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    time.Hour,
		HeartbeatTimeout:       heartbeatTimeout,
		ScheduleToCloseTimeout: time.Hour + transientBudget,
		RetryPolicy:            retryPolicy(),
	})
}
