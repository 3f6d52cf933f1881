package workflows_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/planprint"
	"github.com/slipway-dev/slipway/workflows"
)

// A preview plans each listed instance at most Concurrency at a time and groups the planned ones
// by fingerprint, the largest group first; a busy or skipped instance is reported, not grouped.
func TestStackPreviewGroupsInstancesByPlanFingerprint(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.StackPreviewWorkflow, workflow.RegisterOptions{Name: contract.StackPreviewWorkflowName})
	var listed []contract.PreviewInstance
	for i := range 7 {
		listed = append(listed, contract.PreviewInstance{Ref: contract.Ref{Tenant: []string{"acme", "globex"}[i%2], Name: fmt.Sprintf("web-%d", i)}})
	}
	listed = append(listed, contract.PreviewInstance{Ref: contract.Ref{Tenant: "acme", Name: "old"}, Outcome: contract.PreviewSkipped, Message: "not deployed (DeploymentFailed)"})
	env.RegisterActivityWithOptions(func(context.Context, contract.PreviewPageInput) (contract.PreviewPage, error) {
		var page contract.PreviewPage
		for _, p := range listed {
			if p.Outcome != "" {
				page.Skipped = append(page.Skipped, p)
			} else {
				page.Pending = append(page.Pending, p.Ref)
			}
		}
		return page, nil
	}, activity.RegisterOptions{Name: contract.ActListPreviewPage})
	update := contract.PlanSummary{Change: 1, Resources: []contract.ResourceChange{{Address: "aws_db_parameter_group.main", Type: "aws_db_parameter_group",
		Actions: []string{"update"}, Attributes: []contract.AttributeChange{{Path: "parameter.0.value"}, {Path: "family"}}}}}
	replace := contract.PlanSummary{Add: 1, Destroy: 1, Resources: []contract.ResourceChange{{Address: "aws_db_instance.main", Type: "aws_db_instance",
		Actions: []string{"delete", "create"}}}}
	var mu sync.Mutex
	running, most := 0, 0
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.PreviewInstanceInput) (contract.PreviewInstance, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		out := contract.PreviewInstance{Ref: in.Ref, From: "1.4.0", Outcome: contract.PreviewPlanned, Diff: "--- a\n+++ b\n"}
		plan := update
		switch in.Ref.Name {
		case "web-3":
			return contract.PreviewInstance{Ref: in.Ref, Outcome: contract.PreviewBusy, Message: "busy: deploy"}, nil
		case "web-1", "web-5":
			plan = replace
		}
		fp := planprint.Of(plan, []string{"aws_db_instance"})
		out.Plan, out.Fingerprint = &plan, &fp
		return out, nil
	}, activity.RegisterOptions{Name: contract.ActPreviewInstance})

	env.ExecuteWorkflow(contract.StackPreviewWorkflowName, contract.PreviewSpec{ID: "p", Stack: "web", To: "1.5.0", Concurrency: 2})
	require.NoError(t, env.GetWorkflowError())
	var res contract.PreviewResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.True(t, res.Done)
	assert.Equal(t, 7, res.Total, "the skipped one is not planned")
	assert.Equal(t, 6, res.Planned, "web-3 was busy")
	assert.LessOrEqual(t, most, 2, "at most --concurrency plans at once")
	require.Len(t, res.Groups, 2)
	assert.Equal(t, "update aws_db_parameter_group.main (2 attributes)", res.Groups[0].Summary)
	assert.Len(t, res.Groups[0].Instances, 4)
	assert.Equal(t, 4, res.Groups[0].Count)
	assert.Equal(t, "replace aws_db_instance.main (stateful!)", res.Groups[1].Summary)
	assert.Equal(t, []contract.Ref{{Tenant: "globex", Name: "web-1"}, {Tenant: "globex", Name: "web-5"}}, res.Groups[1].Instances)
	assert.Equal(t, []string{"aws_db_instance.main"}, res.Groups[1].Stateful)
	outcomes := map[string]string{}
	for _, p := range res.Instances {
		outcomes[p.Ref.Name] = p.Outcome
	}
	assert.Equal(t, contract.PreviewBusy, outcomes["web-3"])
	assert.Equal(t, contract.PreviewSkipped, outcomes["old"])
	assert.Len(t, res.Instances, 4, "the busy, the skipped and each group's first; not every planned one")

	diffs := 0
	for _, p := range res.Instances {
		if p.Diff != "" {
			diffs++
		}
	}
	assert.Equal(t, 2, diffs, "one diff per group stays in the result")

	q, err := env.QueryWorkflow(contract.QueryPreview)
	require.NoError(t, err)
	var queried contract.PreviewResult
	require.NoError(t, q.Get(&queried))
	assert.Equal(t, res.Groups, queried.Groups, "the query answers the same groups")
}
