package workerapp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/errkind"
)

// scheduledByID is the search attribute the server sets on a run a Temporal Schedule started;
// a caller may set it too, so it is only a claim.
const scheduledByID = "TemporalScheduledById"

// runs is activities.Runs over the worker's own Temporal client.
type runs struct{ c client.Client }

func (r runs) CurrentPipeline(ctx context.Context, instanceID string) (contract.PipelineRun, error) {
	var cur contract.PipelineRun
	v, err := r.c.QueryWorkflow(ctx, instanceID, "", contract.QueryCurrentPipeline)
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return cur, nil // no such instance: no operation of it may act
	case err != nil:
		return cur, fmt.Errorf("ask %s for its current operation: %w", instanceID, err)
	}
	return cur, v.Get(&cur)
}

func (r runs) CheckScheduled(ctx context.Context, workflowID, runID, workflowType string) error {
	d, err := r.c.DescribeWorkflowExecution(ctx, workflowID, runID)
	if err != nil {
		return fmt.Errorf("describe %s: %w", workflowID, err)
	}
	info := d.GetWorkflowExecutionInfo()
	p := info.GetSearchAttributes().GetIndexedFields()[scheduledByID]
	if p == nil {
		return nil // not a schedule's run: its start was attested
	}
	var id string
	if err := converter.GetDefaultDataConverter().FromPayload(p, &id); err != nil || id == "" {
		return errkind.Errorf(errkind.NotAllowed, "%s: search attribute %s is not a schedule ID", workflowID, scheduledByID)
	}
	refuse := func(why string) error {
		return errkind.Errorf(errkind.NotAllowed, "%s claims schedule %s started it (%s), but %s: an unattested start is refused", workflowID, id, scheduledByID, why)
	}
	sd, err := r.c.ScheduleClient().GetHandle(ctx, id).Describe(ctx)
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return refuse("there is no such schedule")
	case err != nil:
		return fmt.Errorf("describe schedule %s: %w", id, err)
	}
	if a, ok := sd.Schedule.Action.(*client.ScheduleWorkflowAction); !ok || a.Workflow != workflowType {
		return refuse("that schedule starts no " + workflowType)
	}
	started := slices.Clone(sd.Info.RunningWorkflows)
	for _, a := range sd.Info.RecentActions {
		if a.StartWorkflowResult != nil {
			started = append(started, *a.StartWorkflowResult)
		}
	}
	first := info.GetFirstRunId()
	if first == "" {
		first = runID
	}
	if slices.Contains(started, client.ScheduleWorkflowExecution{WorkflowID: workflowID, FirstExecutionRunID: first}) {
		return nil
	}
	return refuse("that schedule did not start it")
}
