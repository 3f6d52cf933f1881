package workflows

import (
	"github.com/slipway-dev/slipway/internal/attest"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// defaultDriftConcurrency bounds the checks a sweep runs at once: each is a terraform plan.
const defaultDriftConcurrency = 4

// driftSweepChunk is how many instances one run of a sweep checks before it continues as new,
// which keeps a sweep of tens of thousands of instances within a bounded history.
const driftSweepChunk = 500

// DriftSweepWorkflow checks every Deployed instance in scope for drift, a few at a time; a
// Temporal Schedule starts it (slipway drift schedule). Each instance runs its own check, so a
// check never overlaps an operation: a busy instance is reported busy and checked next time.
// Each run lists one page of driftSweepChunk instances and continues as new with the next page's
// token, carrying only the counts and the outcomes worth reading.
func DriftSweepWorkflow(ctx workflow.Context, scope contract.DriftScope) (contract.DriftSweepResult, error) {
	// A started sweep checks for whoever started it; a scheduled or continued one for the
	// requester its scope carries (the schedule's creator, or the first run's starter).
	if a, ok := attest.Verified(ctx); ok {
		scope.Requester = onBehalfOf(&a)
	}
	prog := scope.Resume
	if prog == nil {
		prog = &contract.DriftResume{Paged: workflow.GetVersion(ctx, changeSweepPages, workflow.DefaultVersion, 1) >= 1}
		if !prog.Paged {
			if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActListDeployed, scope).Get(ctx, &prog.Left); err != nil {
				return contract.DriftSweepResult{}, err
			}
		}
	}
	var chunk []contract.ListedInstance
	if prog.Paged {
		var page contract.DriftPage
		in := contract.DriftPageInput{Stack: scope.Stack, Tenant: scope.Tenant, Size: driftSweepChunk, Page: prog.Page}
		if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActListDeployedPage, in).Get(ctx, &page); err != nil {
			return contract.DriftSweepResult{}, err
		}
		chunk, prog.Page = page.Instances, page.Next
	} else { // a run from before pages: its list is in its input
		chunk = prog.Left[:min(len(prog.Left), driftSweepChunk)]
		prog.Left = prog.Left[len(chunk):]
	}
	outs, err := checkDrift(ctx, scope, chunk)
	if err != nil {
		return contract.DriftSweepResult{}, err
	}
	for _, o := range outs {
		prog.Checked++
		if o.Outcome == contract.DriftFound || o.Outcome == contract.DriftRemediated {
			prog.Drifted++
		}
	}
	if len(prog.Left) > 0 || len(prog.Page) > 0 {
		for _, o := range outs {
			if o.Outcome != contract.DriftClean {
				prog.Notable = append(prog.Notable, o)
			}
		}
		scope.Resume = prog
		return contract.DriftSweepResult{}, workflow.NewContinueAsNewError(ctx, contract.DriftSweepWorkflowName, scope)
	}
	// The last run lists its own outcomes in full; earlier runs kept only the notable ones.
	return contract.DriftSweepResult{Checked: prog.Checked, Drifted: prog.Drifted, Instances: append(prog.Notable, outs...)}, nil
}

// checkDrift asks each instance to check itself, at most scope.Concurrency at once.
func checkDrift(ctx workflow.Context, scope contract.DriftScope, listed []contract.ListedInstance) ([]contract.DriftInstanceOutput, error) {
	limit := scope.Concurrency
	if limit <= 0 {
		limit = defaultDriftConcurrency
	}
	outs := make([]contract.DriftInstanceOutput, len(listed))
	sweep := workflow.GetInfo(ctx).WorkflowExecution.ID
	inFlight := 0
	for i, li := range listed {
		if err := workflow.Await(ctx, func() bool { return inFlight < limit }); err != nil {
			return nil, err
		}
		inFlight++
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer func() { inFlight-- }()
			in := contract.DriftInstanceInput{Ref: li.Ref, Sweep: sweep, Remediate: scope.Remediate, OnBehalfOf: scope.Requester}
			if err := workflow.ExecuteActivity(driftCtx(ctx), contract.ActDriftInstance, in).Get(ctx, &outs[i]); err != nil {
				outs[i] = contract.DriftInstanceOutput{Ref: li.Ref, Outcome: contract.DriftRefused, Message: errorMessage(err)}
			}
		})
	}
	return outs, workflow.Await(ctx, func() bool { return inFlight == 0 })
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
