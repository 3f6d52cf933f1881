package workflows

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	lists   int                    // the listing activities it ran
}

// runPreview runs one run of a preview of n instances (and one skipped), continued from run if it
// was; a run from before pages (beforePages) lists them all at once and carries what is left.
func runPreview(t *testing.T, n int, spec contract.PreviewSpec, continued, beforePages bool) previewRun {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(StackPreviewWorkflow, workflow.RegisterOptions{Name: contract.StackPreviewWorkflowName})
	if continued {
		env.SetContinuedExecutionRunID("previous")
	} else if beforePages {
		env.OnGetVersion(changePreviewPages, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	}
	listed := []contract.PreviewInstance{{Ref: contract.Ref{Tenant: "acme", Name: "old"}, Outcome: contract.PreviewSkipped}}
	for i := range n {
		listed = append(listed, contract.PreviewInstance{Ref: contract.Ref{Tenant: "acme", Name: fmt.Sprintf("web-%04d", i)}})
	}
	var run previewRun
	env.RegisterActivityWithOptions(func(context.Context, contract.PreviewSpec) ([]contract.PreviewInstance, error) {
		run.lists++
		return listed, nil
	}, activity.RegisterOptions{Name: contract.ActListPreview})
	// Pages as the visibility store hands them out: a token that says where the next one starts.
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.PreviewPageInput) (contract.PreviewPage, error) {
		run.lists++
		from, _ := strconv.Atoi(string(in.Page))
		to := min(from+in.Size, len(listed))
		var page contract.PreviewPage
		for _, p := range listed[from:to] {
			if p.Outcome != "" {
				page.Skipped = append(page.Skipped, p)
			} else {
				page.Pending = append(page.Pending, p.Ref)
			}
		}
		if to < len(listed) {
			page.Next = []byte(strconv.Itoa(to))
		}
		return page, nil
	}, activity.RegisterOptions{Name: contract.ActListPreviewPage})
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

// A preview of 3,000 instances with a batch of 700 lists a page of 700 a run and continues as new
// four times, carrying the groups, a bounded record and the next page's token: never the instances
// left nor every planned one. Its groups equal those of the same preview in one run, and each
// run's query answers the progress so far. A run from before pages lists the whole scope at once
// and carries the instances left, as it did.
func TestStackPreviewContinuesAsNewWithTheSameGroups(t *testing.T) {
	for _, beforePages := range []bool{false, true} {
		t.Run(map[bool]string{false: "paged", true: "before pages"}[beforePages], func(t *testing.T) {
			previewContinuesAsNew(t, beforePages)
		})
	}
}

func previewContinuesAsNew(t *testing.T, beforePages bool) {
	const n, batch = 3000, 700
	spec := contract.PreviewSpec{ID: "p", Stack: "web", To: "1.5.0", Concurrency: 20}
	defer func(b int) { previewBatch = b }(previewBatch)

	previewBatch = n + 1
	one := runPreview(t, n, spec, false, beforePages)
	require.Nil(t, one.next, "a preview within its batch runs once")
	require.True(t, one.res.Done)

	previewBatch = batch
	var runs []previewRun
	for run, continued := spec, false; ; continued = true {
		r := runPreview(t, n, run, continued, beforePages)
		runs = append(runs, r)
		if r.next == nil {
			break
		}
		require.Less(t, len(runs), 10, "the preview ends")
		run = *r.next
	}
	require.Len(t, runs, 5, "700+700+700+700+200")
	last := runs[len(runs)-1].res
	assert.True(t, last.Done)
	assert.False(t, last.Listing)
	assert.Equal(t, one.res.Total, last.Total)
	assert.Equal(t, n, last.Total, "the skipped one is not counted")
	assert.Equal(t, one.res.Planned, last.Planned)
	assert.Equal(t, one.res.Groups, last.Groups, "the same groups, counts and samples as in one run")
	require.Len(t, last.Groups, 3)
	assert.Equal(t, n-31, last.Planned, "31 were busy")
	assert.Equal(t, map[string]int{contract.PreviewSkipped: 1, contract.PreviewBusy: 31}, last.NotPlanned)
	assert.Equal(t, last.Planned, last.Groups[0].Count+last.Groups[1].Count+last.Groups[2].Count)
	assert.Len(t, last.Groups[0].Instances, contract.PreviewSample, "a group names a bounded sample")
	assert.Equal(t, len(one.res.Instances), len(last.Instances), "the same instances kept: skipped, busy, and each group's first")
	assert.Equal(t, 1+3+n/97+1, len(last.Instances))

	done := 0
	for k, r := range runs {
		// Bound: one run schedules at most previewBatch plans (plus its listing), about 5 history
		// events each (scheduled, started, completed, and a share of workflow tasks), so at most
		// ~5*batch+20 events and batch bounded plans: 1000 per run in production, ~5,000 events.
		assert.LessOrEqual(t, r.planned, batch, "run %d plans at most its batch", k)
		done += r.planned
		if r.next == nil {
			t.Logf("run %d: planned %d instances (last)", k, r.planned)
			continue
		}
		assert.Equal(t, done, r.res.Planned+len(r.res.Instances)-4, "run %d's query answers every run's plans so far", k)
		t.Logf("run %d: planned %d instances, carried %d bytes (%d kept outcomes)", k, r.planned, r.carry, len(r.res.Instances))
		if beforePages {
			assert.Equal(t, map[bool]int{true: 1, false: 0}[k == 0], r.lists, "run %d: only the first lists", k)
			assert.Len(t, r.next.Carry.Pending, n-done)
			assert.Less(t, r.carry, 100*(n-done)+20_000, "run %d's carry is bounded by what is left", k)
			continue
		}
		assert.Equal(t, 1, r.lists, "run %d lists one page", k)
		assert.True(t, r.res.Listing, "run %d: more is to be listed", k)
		assert.Empty(t, r.next.Carry.Pending, "run %d carries no instances", k)
		assert.Equal(t, []byte(strconv.Itoa(batch*(k+1))), r.next.Carry.Page, "run %d carries the next page's token", k)
		// What crosses into the next run is the groups and a bounded record: the same whatever is left.
		assert.Less(t, r.carry, 20_000, "run %d's carry does not grow with the fleet", k)
	}
	assert.Equal(t, n, done, "every instance planned exactly once")
}

// A preview names at most MaxPreviewNamed instances it did not plan and counts the rest, so a
// fleet that is all busy still ends with a bounded record.
func TestStackPreviewNamesABoundedNumberNotPlanned(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(StackPreviewWorkflow, workflow.RegisterOptions{Name: contract.StackPreviewWorkflowName})
	const n = contract.MaxPreviewNamed + 100
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.PreviewPageInput) (contract.PreviewPage, error) {
		page := contract.PreviewPage{SkippedMore: 7}
		for i := range contract.MaxPreviewNamed {
			page.Skipped = append(page.Skipped, contract.PreviewInstance{Ref: contract.Ref{Tenant: "acme", Name: fmt.Sprintf("old-%04d", i)}, Outcome: contract.PreviewSkipped})
		}
		for i := range n {
			page.Pending = append(page.Pending, contract.Ref{Tenant: "acme", Name: fmt.Sprintf("web-%04d", i)})
		}
		return page, nil
	}, activity.RegisterOptions{Name: contract.ActListPreviewPage})
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.PreviewInstanceInput) (contract.PreviewInstance, error) {
		return contract.PreviewInstance{Ref: in.Ref, Outcome: contract.PreviewBusy, Message: "busy: deploy"}, nil
	}, activity.RegisterOptions{Name: contract.ActPreviewInstance})
	env.ExecuteWorkflow(contract.StackPreviewWorkflowName, contract.PreviewSpec{ID: "p", Stack: "web", To: "1.5.0", Concurrency: 8})
	require.NoError(t, env.GetWorkflowError())
	var res contract.PreviewResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.Equal(t, map[string]int{contract.PreviewSkipped: contract.MaxPreviewNamed + 7, contract.PreviewBusy: n}, res.NotPlanned)
	assert.Len(t, res.Instances, contract.MaxPreviewNamed, "the record names at most MaxPreviewNamed not planned")
	assert.Equal(t, 0, res.Planned)
	assert.Equal(t, n, res.Total)
}

// A fleet whose every instance plans a different shape keeps MaxPreviewGroups groups, each with
// its first instance's plan, and counts the rest of the planned as ungrouped: the record stays
// bounded (before the bound, 150 shapes kept 150 groups and 150 plans).
func TestStackPreviewKeepsABoundedNumberOfShapes(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(StackPreviewWorkflow, workflow.RegisterOptions{Name: contract.StackPreviewWorkflowName})
	const n = contract.MaxPreviewGroups + 50
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.PreviewPageInput) (contract.PreviewPage, error) {
		var page contract.PreviewPage
		for i := range n {
			page.Pending = append(page.Pending, contract.Ref{Tenant: "acme", Name: fmt.Sprintf("web-%04d", i)})
		}
		return page, nil
	}, activity.RegisterOptions{Name: contract.ActListPreviewPage})
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.PreviewInstanceInput) (contract.PreviewInstance, error) {
		fp := contract.PlanFingerprint{Hash: in.Ref.Name, Summary: "update null_resource." + in.Ref.Name}
		return contract.PreviewInstance{Ref: in.Ref, Outcome: contract.PreviewPlanned, Fingerprint: &fp, Diff: "a diff"}, nil
	}, activity.RegisterOptions{Name: contract.ActPreviewInstance})
	env.ExecuteWorkflow(contract.StackPreviewWorkflowName, contract.PreviewSpec{ID: "p", Stack: "web", To: "1.5.0", Concurrency: 8})
	require.NoError(t, env.GetWorkflowError())
	var res contract.PreviewResult
	require.NoError(t, env.GetWorkflowResult(&res))
	assert.Equal(t, n, res.Planned, "every instance planned")
	assert.Len(t, res.Groups, contract.MaxPreviewGroups)
	assert.Len(t, res.Instances, contract.MaxPreviewGroups, "one kept plan a group")
	assert.Equal(t, 50, res.Ungrouped)
	sum := res.Ungrouped
	for _, g := range res.Groups {
		sum += g.Count
	}
	assert.Equal(t, res.Planned, sum, "each planned instance counted once")
}
