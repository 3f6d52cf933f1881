package workflows_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/workflows"
)

// A deploy whose plan replaces (the harness's plan replaces terraform_data.app) and whose
// manifests recreate a workload drains before its apply, told both; a recreate tells the deployer.
func TestDeployDrainsBeforeAnApplyThatReplaces(t *testing.T) {
	x := newControls(t, steps.Controls{Stateful: []string{"terraform_data"},
		Hooks: []steps.HookInfo{{Name: workflows.HookDrain, Kind: "exec", Deadline: time.Minute}}})
	var compared []steps.WorkloadsInput
	x.env.OnActivity(steps.ActWorkloadChanges, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in steps.WorkloadsInput) ([]string, error) {
			compared = append(compared, in)
			return []string{"Deployment/web"}, nil
		})
	x.decide(time.Minute, steps.VerbApprove, 1) // a stateful replace needs a platform approval first
	res, err := x.run(lifecycle.OpDeploy, workflows.PipelineInput{DeployedRevision: "rev-0", Recreate: true})
	require.NoError(t, err)
	require.Equal(t, []steps.WorkloadsInput{{Ref: steps.Ref{Tenant: "acme", Name: "web"}, From: "rev-0", To: "rev-1"}}, compared)
	require.Len(t, x.hooks, 1)
	next := x.hooks[0].Next
	assert.Equal(t, "Deployed", next.State)
	assert.Equal(t, steps.HookDeploymentUpdated, next.Deployment)
	assert.Equal(t, steps.HookInstanceRecreated, next.Instance)
	assert.Equal(t, steps.HookDiskUnavailable, next.Disk)
	assert.Equal(t, []string{"terraform_data.app", "Deployment/web"}, next.Replaced)
	var names []string
	for _, s := range res.Steps {
		names = append(names, s.Name)
		if s.Name == steps.DeployApp {
			assert.Equal(t, "recreated: Synced Healthy", s.Detail, "the deploy-app step recreated")
		}
	}
	require.Less(t, slices.Index(names, steps.DrainHook), slices.Index(names, steps.TFApply), names)
	require.Contains(t, names, steps.DeployApp)
}

// Without a drain hook nothing is compared and nothing drains.
func TestDeployWithoutADrainHookComparesNothing(t *testing.T) {
	x := newControls(t, steps.Controls{})
	x.env.OnActivity(steps.ActWorkloadChanges, mock.Anything, mock.Anything).Return(
		func(context.Context, steps.WorkloadsInput) ([]string, error) {
			t.Error("compared the manifests with no drain hook to tell")
			return nil, nil
		})
	_, err := x.run(lifecycle.OpDeploy, workflows.PipelineInput{DeployedRevision: "rev-0"})
	require.NoError(t, err)
	assert.Empty(t, x.hooks)
}
