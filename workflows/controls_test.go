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
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/workflows"
)

// controls runs one pipeline alone (no entity) with the lifecycle controls its revision declares.
type controls struct {
	env    *testsuite.TestWorkflowEnvironment
	calls  map[string]int
	plans  int
	hooks  []contract.HookInput
	hookFn func(n int) (contract.HookOutput, error)
	// stale makes the next apply find its plan stale.
	stale bool
	// budgets are the budgets the terraform steps were handed, by activity; applyErr fails the applies.
	budgets  map[string][]*contract.Budget
	applyErr error
}

func newControls(t *testing.T, c contract.Controls) *controls {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetTestTimeout(30 * time.Second)
	env.RegisterWorkflowWithOptions(workflows.DestroyPipeline, workflowName(lifecycle.OpDestroy))
	env.RegisterWorkflowWithOptions(workflows.DeployPipeline, workflowName(lifecycle.OpDeploy))
	env.RegisterWorkflowWithOptions(workflows.ArchivePipeline, workflowName(lifecycle.OpArchive))
	env.RegisterActivity(&activities.Activities{})
	x := &controls{env: env, calls: map[string]int{}, budgets: map[string][]*contract.Budget{}}
	count := func(name string) { x.calls[name]++ }
	env.OnActivity(contract.ActResolveRevision, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.RevisionInput) (contract.RevisionOutput, error) {
			count(contract.ActResolveRevision)
			return contract.RevisionOutput{Revision: "rev-1", Exists: true, Stack: "example", Controls: &c}, nil
		})
	env.OnActivity(contract.ActValidateConfig, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.ValidateInput) (contract.ValidateOutput, error) {
			return contract.ValidateOutput{Stack: "example", Controls: &c}, nil
		})
	env.OnActivity(contract.ActOpenMR, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.OpenMRInput) (forge.MergeRequest, error) {
			count(contract.ActOpenMR)
			return forge.MergeRequest{ID: "7", Branch: "slipway/acme/web/deploy-1", State: forge.StateOpen, HeadSHA: "mr-head", BaseSHA: "base"}, nil
		})
	env.OnActivity(contract.ActMergeMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
			count(contract.ActMergeMR)
			mr.State, mr.MergeSHA = forge.StateMerged, "merged"
			return mr, nil
		})
	env.OnActivity(contract.ActCloseMR, mock.Anything, mock.Anything).Return(
		func(_ context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
			count(contract.ActCloseMR)
			mr.State = forge.StateClosed
			return mr, nil
		})
	env.OnActivity(contract.ActRecordRender, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.RecordRenderInput) (contract.Render, error) {
			count(contract.ActRecordRender)
			return contract.Render{Revision: in.Revision, Files: map[string]string{}}, nil
		})
	env.OnActivity(contract.ActRenderOutputs, mock.Anything, mock.Anything).Return(contract.RenderOutputsOutput{}, nil)
	env.OnActivity(contract.ActVerifyRender, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.VerifyRenderInput) error { count(contract.ActVerifyRender); return nil })
	env.OnActivity(contract.ActAnnouncePlan, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.AnnounceInput) error { count(contract.ActAnnouncePlan); return nil })
	env.OnActivity(contract.ActTerraformInit, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.TerraformInput) error {
			count(contract.ActTerraformInit)
			x.budgets[contract.ActTerraformInit] = append(x.budgets[contract.ActTerraformInit], in.Budget)
			return nil
		})
	env.OnActivity(contract.ActTerraformPlan, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.TerraformInput) (contract.PlanOutput, error) {
			x.plans++
			x.budgets[contract.ActTerraformPlan] = append(x.budgets[contract.ActTerraformPlan], in.Budget)
			sum := contract.PlanSummary{Add: 1, Destroy: 1, Resources: []contract.ResourceChange{{Address: "terraform_data.app", Actions: []string{"delete", "create"}}}}
			if in.Destroy {
				sum = contract.PlanSummary{Destroy: 2}
			}
			return contract.PlanOutput{File: in.OpID + ".tfplan", SHA256: planHash(x.plans), Summary: sum}, nil
		})
	env.OnActivity(contract.ActTerraformApply, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.ApplyInput) (contract.InfraOutput, error) {
			count(contract.ActTerraformApply)
			x.budgets[contract.ActTerraformApply] = append(x.budgets[contract.ActTerraformApply], in.Budget)
			if x.applyErr != nil {
				return contract.InfraOutput{}, x.applyErr
			}
			if x.stale {
				x.stale = false
				return contract.InfraOutput{}, temporal.NewNonRetryableApplicationError("Saved plan is stale", contract.ErrStalePlan, nil)
			}
			count("apply " + in.Plan.SHA256)
			return contract.InfraOutput{Resources: []string{}, Serial: 3}, nil
		})
	env.OnActivity(contract.ActTerraformDestroy, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.TerraformInput) (contract.InfraOutput, error) {
			count(contract.ActTerraformDestroy)
			x.budgets[contract.ActTerraformDestroy] = append(x.budgets[contract.ActTerraformDestroy], in.Budget)
			return contract.InfraOutput{Resources: []string{}}, nil
		})
	app := func(context.Context, contract.AppInput) (contract.AppStatus, error) {
		return contract.AppStatus{Deployer: "none", Deployed: true, Sync: "Synced", Health: "Healthy"}, nil
	}
	env.OnActivity(contract.ActRemoveApp, mock.Anything, mock.Anything).Return(func(ctx context.Context, in contract.AppInput) (contract.AppStatus, error) {
		count(contract.ActRemoveApp)
		return app(ctx, in)
	})
	env.OnActivity(contract.ActDeployApp, mock.Anything, mock.Anything).Return(app)
	env.OnActivity(contract.ActBootstrapSecrets, mock.Anything, mock.Anything).Return(contract.SecretsOutput{}, nil)
	env.OnActivity(contract.ActCollectLeftovers, mock.Anything, mock.Anything).Return([]contract.Leftover{}, nil)
	env.OnActivity(contract.ActRunHook, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.HookInput) (contract.HookOutput, error) {
			x.hooks = append(x.hooks, in)
			if x.hookFn != nil {
				return x.hookFn(len(x.hooks))
			}
			return contract.HookOutput{Kind: "exec", Calls: 1, Answers: []string{"0"}, Output: "drained"}, nil
		})
	return x
}

func planHash(n int) string {
	return string(rune('a'+n-1)) + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"
}

func workflowName(op lifecycle.Operation) workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: contract.PipelineName(op)}
}

// decide sends a decision on the nth plan once the pipeline waits for it.
func (x *controls) decide(after time.Duration, verb string, plan int) {
	x.env.RegisterDelayedCallback(func() {
		x.env.SignalWorkflow(contract.SignalApprovalDecision, contract.ApprovalDecision{Verb: verb, Hash: planHash(plan), Actor: "alice", Reason: "r"})
	}, after)
}

func (x *controls) run(op lifecycle.Operation, in contract.PipelineInput) (contract.PipelineResult, error) {
	in.Ref, in.Operation, in.OpID, in.Attempt, in.From = ref, op, "1-e", 1, lifecycle.Deployed
	x.env.ExecuteWorkflow(contract.PipelineName(op), in)
	var res contract.PipelineResult
	err := x.env.GetWorkflowError()
	if err == nil {
		err = x.env.GetWorkflowResult(&res)
	}
	return res, err
}

func notApproved(t *testing.T, err error) contract.PipelineFailure {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "got %v", err)
	require.Equal(t, contract.ErrNotApproved, appErr.Type())
	var pf contract.PipelineFailure
	require.NoError(t, appErr.Details(&pf))
	return pf
}

func TestDestroyWaitsForApprovalAndAppliesThePlanItNames(t *testing.T) {
	x := newControls(t, contract.Controls{Approval: approval.Rule{Policy: approval.Destructive, Timeout: time.Hour},
		Hooks: []contract.HookInfo{{Name: workflows.HookDrain, Kind: "exec", Deadline: time.Minute}}})
	x.decide(time.Minute, contract.VerbApprove, 1)
	res, err := x.run(lifecycle.OpDestroy, contract.PipelineInput{})
	require.NoError(t, err)
	assert.Equal(t, 1, x.calls["apply "+planHash(1)], "the approved destroy plan is what runs")
	assert.Zero(t, x.calls[contract.ActTerraformDestroy], "no fresh, unapproved destroy")
	require.Len(t, x.hooks, 1)
	h := x.hooks[0]
	assert.Equal(t, contract.HookState{State: "Deployed", App: "running", Data: "available", Operation: "destroy", Reason: h.Current.Reason,
		Deployment: "updated", Instance: "running", Disk: "attached"}, h.Current)
	assert.Equal(t, "Destroyed", h.Next.State)
	assert.Equal(t, "deleted", h.Next.App)
	assert.Equal(t, "deleted", h.Next.Data)
	var drained bool
	for _, s := range res.Steps {
		if s.Name == contract.DrainHook {
			drained = true
			assert.Equal(t, "drained", s.Output, "the hook's output is in the step record")
		}
	}
	assert.True(t, drained)
}

func TestRejectedRemovalChangesNothing(t *testing.T) {
	x := newControls(t, contract.Controls{Approval: approval.Rule{Policy: approval.Always}})
	x.decide(time.Minute, contract.VerbReject, 1)
	_, err := x.run(lifecycle.OpDestroy, contract.PipelineInput{})
	pf := notApproved(t, err)
	assert.Equal(t, contract.VerbReject, pf.Decision.Verb)
	assert.Empty(t, pf.Failure.Leftovers)
	assert.Zero(t, x.calls[contract.ActRemoveApp]+x.calls[contract.ActTerraformApply], "a rejected destroy removes nothing")
}

func TestAStaleDecisionIsIgnoredAndTheDeadlineEndsTheWait(t *testing.T) {
	x := newControls(t, contract.Controls{Approval: approval.Rule{Policy: approval.Always, Timeout: 2 * time.Hour}})
	x.decide(time.Minute, contract.VerbApprove, 7) // names another plan: not this one's approval
	_, err := x.run(lifecycle.OpDestroy, contract.PipelineInput{})
	pf := notApproved(t, err)
	assert.Equal(t, workflows.VerbExpired, pf.Decision.Verb)
	assert.Zero(t, x.calls[contract.ActTerraformApply]+x.calls[contract.ActTerraformDestroy]+x.calls[contract.ActRemoveApp])
}

func TestAConfigChangeIsPlannedOnItsMRAndTheMRClosedWhenRejected(t *testing.T) {
	x := newControls(t, contract.Controls{Approval: approval.Rule{Policy: approval.Destructive}})
	x.decide(time.Minute, contract.VerbReject, 1)
	_, err := x.run(lifecycle.OpDeploy, contract.PipelineInput{ConfigYAML: "stack: example\n"})
	pf := notApproved(t, err)
	assert.Zero(t, x.calls[contract.ActMergeMR], "nothing reaches main before approval")
	assert.Equal(t, 1, x.calls[contract.ActCloseMR])
	assert.Equal(t, 1, x.calls[contract.ActAnnouncePlan], "reviewers are told on the MR")
	assert.Equal(t, forge.StateClosed, pf.Progress.MR.State)
	assert.Empty(t, pf.Failure.Leftovers)
}

func TestAnApprovedConfigChangeAppliesThePlanMadeOnItsMR(t *testing.T) {
	x := newControls(t, contract.Controls{Approval: approval.Rule{Policy: approval.Destructive},
		Hooks: []contract.HookInfo{{Name: workflows.HookPostDeploy, Kind: "http", Deadline: time.Minute}}})
	x.decide(time.Minute, contract.VerbApprove, 1)
	_, err := x.run(lifecycle.OpDeploy, contract.PipelineInput{ConfigYAML: "stack: example\n"})
	require.NoError(t, err)
	assert.Equal(t, 1, x.plans, "one plan: made on the MR, applied after the merge")
	assert.Equal(t, 1, x.calls["apply "+planHash(1)])
	assert.Equal(t, 1, x.calls[contract.ActMergeMR])
	require.Len(t, x.hooks, 1)
	assert.Equal(t, workflows.HookPostDeploy, x.hooks[0].Hook)
}

func TestAFailingHookFailsTheStepWithItsOutputAndALeftover(t *testing.T) {
	x := newControls(t, contract.Controls{Hooks: []contract.HookInfo{{Name: workflows.HookDrain, Kind: "exec", Deadline: time.Minute}}})
	x.hookFn = func(int) (contract.HookOutput, error) {
		out := contract.HookOutput{Kind: "exec", Calls: 1, Output: "cannot reach the db"}
		return out, temporal.NewNonRetryableApplicationError("drain hook exited 3 on call 1", activities.ErrHookFailed, nil, out)
	}
	_, err := x.run(lifecycle.OpArchive, contract.PipelineInput{})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr))
	require.Equal(t, contract.ErrPipelineFailed, appErr.Type())
	var pf contract.PipelineFailure
	require.NoError(t, appErr.Details(&pf))
	assert.Equal(t, contract.DrainHook, pf.Failure.Step)
	require.Len(t, pf.Failure.Leftovers, 1)
	assert.Equal(t, contract.LeftoverHook, pf.Failure.Leftovers[0].Kind)
	assert.Contains(t, pf.Failure.Leftovers[0].Detail, "app running, data available")
	assert.Zero(t, x.calls[contract.ActRemoveApp], "the app stays when its drain fails")
	for _, s := range pf.Steps {
		if s.Name == contract.DrainHook {
			assert.Equal(t, "cannot reach the db", s.Output)
		}
	}
}

func TestAnUnapprovedArchiveExpiresWithNothingRemoved(t *testing.T) {
	x := newControls(t, contract.Controls{Approval: approval.Rule{Policy: approval.Destructive, Timeout: 3 * time.Second}})
	_, err := x.run(lifecycle.OpArchive, contract.PipelineInput{})
	pf := notApproved(t, err)
	assert.Equal(t, workflows.VerbExpired, pf.Decision.Verb)
	assert.Zero(t, x.calls[contract.ActRemoveApp])
}

func TestARejectedReplanAfterTheMergeSaysMainIsAhead(t *testing.T) {
	x := newControls(t, contract.Controls{Approval: approval.Rule{Policy: approval.Always}})
	x.stale = true
	x.decide(time.Minute, contract.VerbApprove, 1)
	x.decide(2*time.Minute, contract.VerbReject, 2)
	_, err := x.run(lifecycle.OpDeploy, contract.PipelineInput{ConfigYAML: "stack: example\n"})
	pf := notApproved(t, err)
	assert.Equal(t, contract.VerbReject, pf.Decision.Verb)
	require.Len(t, pf.Failure.Leftovers, 1)
	assert.Equal(t, "merged-config", pf.Failure.Leftovers[0].Kind)
	assert.Zero(t, x.calls[contract.ActCloseMR], "a merged MR is not closed")
}
