package workflows

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/planprint"
)

// previewRun is one run of a preview in the test environment: its end, and what it cost.
type previewRun struct {
	res     contract.PreviewResult // its result, or what its query answers when it continued
	next    *contract.PreviewSpec  // the input it continued as new with
	planned int                    // the PreviewInstance activities it ran
	carry   int                    // the bytes of the input it continued with
}

// runPreview runs one run of a preview of n instances, continued from run if it was.
func runPreview(t *testing.T, n int, spec contract.PreviewSpec, continued bool) previewRun {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(StackPreviewWorkflow, workflow.RegisterOptions{Name: contract.StackPreviewWorkflowName})
	if continued {
		env.SetContinuedExecutionRunID("previous")
	}
	env.RegisterActivityWithOptions(func(context.Context, contract.PreviewSpec) ([]contract.PreviewInstance, error) {
		listed := []contract.PreviewInstance{{Ref: contract.Ref{Tenant: "acme", Name: "old"}, Outcome: contract.PreviewSkipped}}
		for i := range n {
			listed = append(listed, contract.PreviewInstance{Ref: contract.Ref{Tenant: "acme", Name: fmt.Sprintf("web-%04d", i)}})
		}
		return listed, nil
	}, activity.RegisterOptions{Name: contract.ActListPreview})
	var run previewRun
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.PreviewInstanceInput) (contract.PreviewInstance, error) {
		run.planned++
		var i int
		_, _ = fmt.Sscanf(in.Ref.Name, "web-%d", &i)
		if i%97 == 5 {
			return contract.PreviewInstance{Ref: in.Ref, Outcome: contract.PreviewBusy, Message: "busy: deploy"}, nil
		}
		plan := contract.PlanSummary{Change: 1, Resources: []contract.ResourceChange{{Address: "aws_db_parameter_group.main", Type: "aws_db_parameter_group", Actions: []string{"update"}}}}
		switch {
		case i%10 == 0:
			plan = contract.PlanSummary{Add: 1, Destroy: 1, Resources: []contract.ResourceChange{{Address: "aws_db_instance.main", Type: "aws_db_instance", Actions: []string{"delete", "create"}}}}
		case i%10 < 4:
			plan = contract.PlanSummary{Add: 1, Resources: []contract.ResourceChange{{Address: "aws_s3_bucket.logs", Type: "aws_s3_bucket", Actions: []string{"create"}}}}
		}
		fp := planprint.Of(plan, []string{"aws_db_instance"})
		return contract.PreviewInstance{Ref: in.Ref, Outcome: contract.PreviewPlanned, Plan: &plan, Fingerprint: &fp, Diff: "--- a\n+++ b\n"}, nil
	}, activity.RegisterOptions{Name: contract.ActPreviewInstance})

	env.ExecuteWorkflow(contract.StackPreviewWorkflowName, spec)
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); errors.As(err, &can) {
		var next contract.PreviewSpec
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
		run.next, run.carry = &next, can.Input.Size()
		q, err := env.QueryWorkflow(contract.QueryPreview)
		require.NoError(t, err)
		require.NoError(t, q.Get(&run.res))
		return run
	}
	require.NoError(t, env.GetWorkflowError())
	require.NoError(t, env.GetWorkflowResult(&run.res))
	return run
}

// A preview of 3,000 instances with a batch of 700 continues as new four times, each run planning
// at most its batch and carrying the groups and the instances left, never every planned one; its
// groups equal those of the same preview in one run, and each run's query answers the progress so far.
func TestStackPreviewContinuesAsNewWithTheSameGroups(t *testing.T) {
	const n, batch = 3000, 700
	spec := contract.PreviewSpec{ID: "p", Stack: "web", To: "1.5.0", Concurrency: 20}
	defer func(b int) { previewBatch = b }(previewBatch)

	previewBatch = n + 1
	one := runPreview(t, n, spec, false)
	require.Nil(t, one.next, "a preview within its batch runs once")
	require.True(t, one.res.Done)

	previewBatch = batch
	var runs []previewRun
	for run, continued := spec, false; ; continued = true {
		r := runPreview(t, n, run, continued)
		runs = append(runs, r)
		if r.next == nil {
			break
		}
		require.Less(t, len(runs), 10, "the preview ends")
		run = *r.next
	}
	require.GreaterOrEqual(t, len(runs), 3, "it continued as new at least twice")
	require.Len(t, runs, 5, "700+700+700+700+200")
	last := runs[len(runs)-1].res
	assert.True(t, last.Done)
	assert.Equal(t, one.res.Total, last.Total)
	assert.Equal(t, one.res.Planned, last.Planned)
	assert.Equal(t, one.res.Groups, last.Groups, "the same groups, counts and samples as in one run")
	require.Len(t, last.Groups, 3)
	assert.Equal(t, n-31, last.Planned, "31 were busy")
	assert.Equal(t, last.Planned, last.Groups[0].Count+last.Groups[1].Count+last.Groups[2].Count)
	assert.Len(t, last.Groups[0].Instances, contract.PreviewSample, "a group names a bounded sample")
	assert.Equal(t, len(one.res.Instances), len(last.Instances), "the same instances kept: skipped, busy, and each group's first")
	assert.Equal(t, 1+3+n/97+1, len(last.Instances))

	done := 0
	for k, r := range runs {
		// Bound: one run schedules at most previewBatch plans (plus the listing in the first), about
		// 5 history events each (scheduled, started, completed, and a share of workflow tasks), so at
		// most ~5*batch+20 events and batch bounded plans: 1000 per run in production, ~5,000 events.
		assert.LessOrEqual(t, r.planned, batch, "run %d plans at most its batch", k)
		done += r.planned
		if r.next != nil {
			assert.Equal(t, done, r.res.Planned+len(r.res.Instances)-4, "run %d's query answers every run's plans so far", k)
			assert.Len(t, r.next.Carry.Pending, n-done)
			// What crosses into the next run is the groups, the not-planned ones and the pending refs:
			// per pending instance a constant, not growing with the instances planned.
			perPending := float64(r.carry) / float64(n-done)
			t.Logf("run %d: planned %d instances, carried %d bytes (%.1f per pending instance, %d kept outcomes)", k, r.planned, r.carry, perPending, len(r.res.Instances))
			assert.Less(t, r.carry, 100*(n-done)+20_000, "run %d's carry is bounded by what is left", k)
		} else {
			t.Logf("run %d: planned %d instances (last)", k, r.planned)
		}
	}
	assert.Equal(t, n, done, "every instance planned exactly once")
}
