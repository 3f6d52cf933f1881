package workflows_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/workflows"
)

// A deploy whose plan replaces (the harness's plan replaces terraform_data.app) and whose
// manifests recreate a workload drains before its apply, told both; a recreate tells the deployer.
func TestDeployDrainsBeforeAnApplyThatReplaces(t *testing.T) {
	x := newControls(t, contract.Controls{Stateful: []string{"terraform_data"},
		Hooks: []contract.HookInfo{{Name: workflows.HookDrain, Kind: "exec", Deadline: time.Minute}}})
	var compared []contract.WorkloadsInput
	x.env.OnActivity(contract.ActWorkloadChanges, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.WorkloadsInput) ([]string, error) {
			compared = append(compared, in)
			return []string{"Deployment/web"}, nil
		})
	x.decide(time.Minute, contract.VerbApprove, 1) // a stateful replace needs a platform approval first
	res, err := x.run(lifecycle.OpDeploy, contract.PipelineInput{DeployedRevision: "rev-0", Recreate: true})
	require.NoError(t, err)
	require.Equal(t, []contract.WorkloadsInput{{Ref: contract.Ref{Tenant: "acme", Name: "web"}, From: "rev-0", To: "rev-1"}}, compared)
	require.Len(t, x.hooks, 1)
	next := x.hooks[0].Next
	assert.Equal(t, "Deployed", next.State)
	assert.Equal(t, contract.HookDeploymentUpdated, next.Deployment)
	assert.Equal(t, contract.HookInstanceRecreated, next.Instance)
	assert.Equal(t, contract.HookDiskUnavailable, next.Disk)
	assert.Equal(t, []string{"terraform_data.app", "Deployment/web"}, next.Replaced)
	var names []string
	for _, s := range res.Steps {
		names = append(names, s.Name)
		if s.Name == contract.DeployApp {
			assert.Equal(t, "recreated: Synced Healthy", s.Detail, "the deploy-app step recreated")
		}
	}
	require.Less(t, slices.Index(names, contract.DrainHook), slices.Index(names, contract.TFApply), names)
	require.Contains(t, names, contract.DeployApp)
}

// Without a drain hook nothing is compared and nothing drains.
func TestDeployWithoutADrainHookComparesNothing(t *testing.T) {
	x := newControls(t, contract.Controls{})
	x.env.OnActivity(contract.ActWorkloadChanges, mock.Anything, mock.Anything).Return(
		func(context.Context, contract.WorkloadsInput) ([]string, error) {
			t.Error("compared the manifests with no drain hook to tell")
			return nil, nil
		})
	_, err := x.run(lifecycle.OpDeploy, contract.PipelineInput{DeployedRevision: "rev-0"})
	require.NoError(t, err)
	assert.Empty(t, x.hooks)
}
