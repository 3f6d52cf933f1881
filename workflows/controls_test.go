package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

// controls runs one pipeline alone (no entity) with the lifecycle controls its revision declares.
type controls struct {
	env    *testsuite.TestWorkflowEnvironment
	calls  map[string]int
	plans  int
	hooks  []steps.HookInput
	hookFn func(n int) (steps.HookOutput, error)
	// stale makes the next apply find its plan stale.
	stale bool
	// budgets are the budgets the terraform steps were handed, by activity; applyErr fails the applies.
	budgets  map[string][]*steps.Budget
	applyErr error
}

func newControls(t *testing.T, c steps.Controls) *controls {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.RegisterWorkflowWithOptions(workflows.DestroyPipeline, workflowName(lifecycle.OpDestroy))
	env.RegisterWorkflowWithOptions(workflows.DeployPipeline, workflowName(lifecycle.OpDeploy))
	env.RegisterWorkflowWithOptions(workflows.ArchivePipeline, workflowName(lifecycle.OpArchive))
	env.RegisterActivity(&activities.Activities{})
	x := &controls{env: env, calls: map[string]int{}, budgets: map[string][]*steps.Budget{}}
	count := func(name string) { x.calls[name]++ }
	env.OnActivity(steps.ActResolveRevision, mock.Anything, mock.Anything).Return(
		func(context.Context, steps.RevisionInput) (steps.RevisionOutput, error) {
			count(steps.ActResolveRevision)
			return steps.RevisionOutput{Revision: "rev-1", Exists: true, Stack: "example", Controls: &c}, nil
		})
	env.OnActivity(steps.ActValidateConfig, mock.Anything, mock.Anything).Return(
		func(context.Context, steps.ValidateInput) (steps.ValidateOutput, error) {
			return steps.ValidateOutput{Stack: "example", Controls: &c}, nil
		})
	env.OnActivity(steps.ActOpenMR, mock.Anything, mock.Anything).Return(
		func(context.Context, steps.OpenMRInput) (forge.MergeRequest, error) {
			count(steps.ActOpenMR)
			return forge.MergeRequest{ID: "7", Branch: "slipway/acme/web/deploy-1", State: forge.StateOpen, HeadSHA: "mr-head", BaseSHA: "base"}, nil
		})
	env.OnActivity(steps.ActMergeMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
			count(steps.ActMergeMR)
			mr.State, mr.MergeSHA = forge.StateMerged, "merged"
			return mr, nil
		})
	env.OnActivity(steps.ActCloseMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
			count(steps.ActCloseMR)
			mr.State = forge.StateClosed
			return mr, nil
		})
	env.OnActivity(steps.ActRecordRender, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.RecordRenderInput) (steps.Render, error) {
			count(steps.ActRecordRender)
			return steps.Render{Revision: in.Revision, Files: map[string]string{}}, nil
		})
	env.OnActivity(steps.ActRenderOutputs, mock.Anything, mock.Anything).Return(steps.RenderOutputsOutput{}, nil)
	env.OnActivity(steps.ActVerifyRender, mock.Anything, mock.Anything).Return(
		func(context.Context, steps.VerifyRenderInput) error { count(steps.ActVerifyRender); return nil })
	env.OnActivity(steps.ActAnnouncePlan, mock.Anything, mock.Anything).Return(
		func(context.Context, steps.AnnounceInput) error { count(steps.ActAnnouncePlan); return nil })
	env.OnActivity(steps.ActTerraformInit, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.TerraformInput) error {
			count(steps.ActTerraformInit)
			x.budgets[steps.ActTerraformInit] = append(x.budgets[steps.ActTerraformInit], in.Budget)
			return nil
		})
	env.OnActivity(steps.ActTerraformPlan, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.TerraformInput) (steps.PlanOutput, error) {
			x.plans++
			x.budgets[steps.ActTerraformPlan] = append(x.budgets[steps.ActTerraformPlan], in.Budget)
			sum := steps.PlanSummary{Add: 1, Destroy: 1, Resources: []steps.ResourceChange{{Address: "terraform_data.app", Actions: []string{"delete", "create"}}}}
			if in.Destroy {
				sum = steps.PlanSummary{Destroy: 2}
			}
			return steps.PlanOutput{File: in.OpID + ".tfplan", SHA256: planHash(x.plans), Summary: sum}, nil
		})
	env.OnActivity(steps.ActTerraformApply, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.ApplyInput) (steps.InfraOutput, error) {
			count(steps.ActTerraformApply)
			x.budgets[steps.ActTerraformApply] = append(x.budgets[steps.ActTerraformApply], in.Budget)
			if x.applyErr != nil {
				return steps.InfraOutput{}, x.applyErr
			}
			if x.stale {
				x.stale = false
				return steps.InfraOutput{}, temporal.NewNonRetryableApplicationError("Saved plan is stale", steps.ErrStalePlan, nil)
			}
			count("apply " + in.Plan.SHA256)
			return steps.InfraOutput{Resources: []string{}, Serial: 3}, nil
		})
	env.OnActivity(steps.ActTerraformDestroy, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.TerraformInput) (steps.InfraOutput, error) {
			count(steps.ActTerraformDestroy)
			x.budgets[steps.ActTerraformDestroy] = append(x.budgets[steps.ActTerraformDestroy], in.Budget)
			return steps.InfraOutput{Resources: []string{}}, nil
		})
	app := func(context.Context, steps.AppInput) (steps.AppStatus, error) {
		return steps.AppStatus{Deployer: "none", Deployed: true, Sync: "Synced", Health: "Healthy"}, nil
	}
	env.OnActivity(steps.ActRemoveApp, mock.Anything, mock.Anything).Return(func(ctx context.Context, in steps.AppInput) (steps.AppStatus, error) {
		count(steps.ActRemoveApp)
		return app(ctx, in)
	})
	env.OnActivity(steps.ActDeployApp, mock.Anything, mock.Anything).Return(app)
	env.OnActivity(steps.ActBootstrapSecrets, mock.Anything, mock.Anything).Return(steps.SecretsOutput{}, nil)
	env.OnActivity(steps.ActCollectLeftovers, mock.Anything, mock.Anything).Return([]steps.Leftover{}, nil)
	env.OnActivity(steps.ActRunHook, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.HookInput) (steps.HookOutput, error) {
			x.hooks = append(x.hooks, in)
			if x.hookFn != nil {
				return x.hookFn(len(x.hooks))
			}
			return steps.HookOutput{Kind: "exec", Calls: 1, Answers: []string{"0"}, Output: "drained"}, nil
		})
	return x
}

func planHash(n int) string {
	return string(rune('a'+n-1)) + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"
}

func workflowName(op lifecycle.Operation) workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: workflows.PipelineName(op)}
}

// decide sends a decision on the nth plan once the pipeline waits for it.
func (x *controls) decide(after time.Duration, verb string, plan int) {
	x.env.RegisterDelayedCallback(func() {
		x.env.SignalWorkflow(workflows.SignalApprovalDecision, workflows.ApprovalDecision{Verb: verb, Hash: planHash(plan), Actor: "alice", Reason: "r"})
	}, after)
}

func (x *controls) run(op lifecycle.Operation, in workflows.PipelineInput) (workflows.PipelineResult, error) {
	in.Ref, in.Operation, in.OpID, in.Attempt, in.From = ref, op, "1-e", 1, lifecycle.Deployed
	x.env.ExecuteWorkflow(workflows.PipelineName(op), in)
	var res workflows.PipelineResult
	err := x.env.GetWorkflowError()
	if err == nil {
		err = x.env.GetWorkflowResult(&res)
	}
	return res, err
}

func notApproved(t *testing.T, err error) workflows.PipelineFailure {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "got %v", err)
	require.Equal(t, steps.ErrNotApproved, appErr.Type())
	var pf workflows.PipelineFailure
	require.NoError(t, appErr.Details(&pf))
	return pf
}

func TestDestroyWaitsForApprovalAndAppliesThePlanItNames(t *testing.T) {
	x := newControls(t, steps.Controls{Approval: approval.Rule{Policy: approval.Destructive, Timeout: time.Hour},
		Hooks: []steps.HookInfo{{Name: workflows.HookDrain, Kind: "exec", Deadline: time.Minute}}})
	x.decide(time.Minute, steps.VerbApprove, 1)
	res, err := x.run(lifecycle.OpDestroy, workflows.PipelineInput{})
	require.NoError(t, err)
	assert.Equal(t, 1, x.calls["apply "+planHash(1)], "the approved destroy plan is what runs")
	assert.Zero(t, x.calls[steps.ActTerraformDestroy], "no fresh, unapproved destroy")
	require.Len(t, x.hooks, 1)
	h := x.hooks[0]
	assert.Equal(t, steps.HookState{State: "Deployed", App: "running", Data: "available", Operation: "destroy", Reason: h.Current.Reason,
		Deployment: "updated", Instance: "running", Disk: "attached"}, h.Current)
	assert.Equal(t, "Destroyed", h.Next.State)
	assert.Equal(t, "deleted", h.Next.App)
	assert.Equal(t, "deleted", h.Next.Data)
	var drained bool
	for _, s := range res.Steps {
		if s.Name == steps.DrainHook {
			drained = true
			assert.Equal(t, "drained", s.Output, "the hook's output is in the step record")
		}
	}
	assert.True(t, drained)
}

func TestRejectedRemovalChangesNothing(t *testing.T) {
	x := newControls(t, steps.Controls{Approval: approval.Rule{Policy: approval.Always}})
	x.decide(time.Minute, steps.VerbReject, 1)
	_, err := x.run(lifecycle.OpDestroy, workflows.PipelineInput{})
	pf := notApproved(t, err)
	assert.Equal(t, steps.VerbReject, pf.Decision.Verb)
	assert.Empty(t, pf.Failure.Leftovers)
	assert.Zero(t, x.calls[steps.ActRemoveApp]+x.calls[steps.ActTerraformApply], "a rejected destroy removes nothing")
}

func TestAStaleDecisionIsIgnoredAndTheDeadlineEndsTheWait(t *testing.T) {
	x := newControls(t, steps.Controls{Approval: approval.Rule{Policy: approval.Always, Timeout: 2 * time.Hour}})
	x.decide(time.Minute, steps.VerbApprove, 7) // names another plan: not this one's approval
	_, err := x.run(lifecycle.OpDestroy, workflows.PipelineInput{})
	pf := notApproved(t, err)
	assert.Equal(t, workflows.VerbExpired, pf.Decision.Verb)
	assert.Zero(t, x.calls[steps.ActTerraformApply]+x.calls[steps.ActTerraformDestroy]+x.calls[steps.ActRemoveApp])
}

func TestAConfigChangeIsPlannedOnItsMRAndTheMRClosedWhenRejected(t *testing.T) {
	x := newControls(t, steps.Controls{Approval: approval.Rule{Policy: approval.Destructive}})
	x.decide(time.Minute, steps.VerbReject, 1)
	_, err := x.run(lifecycle.OpDeploy, workflows.PipelineInput{ConfigYAML: "stack: example\n"})
	pf := notApproved(t, err)
	assert.Zero(t, x.calls[steps.ActMergeMR], "nothing reaches main before approval")
	assert.Equal(t, 1, x.calls[steps.ActCloseMR])
	assert.Equal(t, 1, x.calls[steps.ActAnnouncePlan], "reviewers are told on the MR")
	assert.Equal(t, forge.StateClosed, pf.Progress.MR.State)
	assert.Empty(t, pf.Failure.Leftovers)
}

func TestAnApprovedConfigChangeAppliesThePlanMadeOnItsMR(t *testing.T) {
	x := newControls(t, steps.Controls{Approval: approval.Rule{Policy: approval.Destructive},
		Hooks: []steps.HookInfo{{Name: workflows.HookPostDeploy, Kind: "http", Deadline: time.Minute}}})
	x.decide(time.Minute, steps.VerbApprove, 1)
	_, err := x.run(lifecycle.OpDeploy, workflows.PipelineInput{ConfigYAML: "stack: example\n"})
	require.NoError(t, err)
	assert.Equal(t, 1, x.plans, "one plan: made on the MR, applied after the merge")
	assert.Equal(t, 1, x.calls["apply "+planHash(1)])
	assert.Equal(t, 1, x.calls[steps.ActMergeMR])
	require.Len(t, x.hooks, 1)
	assert.Equal(t, workflows.HookPostDeploy, x.hooks[0].Hook)
}

func TestAFailingHookFailsTheStepWithItsOutputAndALeftover(t *testing.T) {
	x := newControls(t, steps.Controls{Hooks: []steps.HookInfo{{Name: workflows.HookDrain, Kind: "exec", Deadline: time.Minute}}})
	x.hookFn = func(int) (steps.HookOutput, error) {
		out := steps.HookOutput{Kind: "exec", Calls: 1, Output: "cannot reach the db"}
		return out, temporal.NewNonRetryableApplicationError("drain hook exited 3 on call 1", activities.ErrHookFailed, nil, out)
	}
	_, err := x.run(lifecycle.OpArchive, workflows.PipelineInput{})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr))
	require.Equal(t, steps.ErrPipelineFailed, appErr.Type())
	var pf workflows.PipelineFailure
	require.NoError(t, appErr.Details(&pf))
	assert.Equal(t, steps.DrainHook, pf.Failure.Step)
	require.Len(t, pf.Failure.Leftovers, 1)
	assert.Equal(t, steps.LeftoverHook, pf.Failure.Leftovers[0].Kind)
	assert.Contains(t, pf.Failure.Leftovers[0].Detail, "app running, data available")
	assert.Zero(t, x.calls[steps.ActRemoveApp], "the app stays when its drain fails")
	for _, s := range pf.Steps {
		if s.Name == steps.DrainHook {
			assert.Equal(t, "cannot reach the db", s.Output)
		}
	}
}

func TestAnUnapprovedArchiveExpiresWithNothingRemoved(t *testing.T) {
	x := newControls(t, steps.Controls{Approval: approval.Rule{Policy: approval.Destructive, Timeout: 3 * time.Second}})
	_, err := x.run(lifecycle.OpArchive, workflows.PipelineInput{})
	pf := notApproved(t, err)
	assert.Equal(t, workflows.VerbExpired, pf.Decision.Verb)
	assert.Zero(t, x.calls[steps.ActRemoveApp])
}

func TestARejectedReplanAfterTheMergeSaysMainIsAhead(t *testing.T) {
	x := newControls(t, steps.Controls{Approval: approval.Rule{Policy: approval.Always}})
	x.stale = true
	x.decide(time.Minute, steps.VerbApprove, 1)
	x.decide(2*time.Minute, steps.VerbReject, 2)
	_, err := x.run(lifecycle.OpDeploy, workflows.PipelineInput{ConfigYAML: "stack: example\n"})
	pf := notApproved(t, err)
	assert.Equal(t, steps.VerbReject, pf.Decision.Verb)
	require.Len(t, pf.Failure.Leftovers, 1)
	assert.Equal(t, "merged-config", pf.Failure.Leftovers[0].Kind)
	assert.Zero(t, x.calls[steps.ActCloseMR], "a merged MR is not closed")
}
