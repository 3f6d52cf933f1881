package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/workflows"
)

func sweepEnv(listed []contract.ListedInstance) *testsuite.TestWorkflowEnvironment {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.DriftSweepWorkflow, workflow.RegisterOptions{Name: contract.DriftSweepWorkflowName})
	env.RegisterActivityWithOptions(func(context.Context, contract.DriftScope) ([]contract.ListedInstance, error) { return listed, nil },
		activity.RegisterOptions{Name: contract.ActListDeployed})
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.DriftInstanceInput) (contract.DriftInstanceOutput, error) {
		out := contract.DriftInstanceOutput{Ref: in.Ref, Outcome: contract.DriftClean}
		switch in.Ref.Name {
		case "web-7", "web-600":
			out.Outcome, out.Resources = contract.DriftFound, []string{"terraform_data.app (update)"}
		case "web-8":
			out.Outcome, out.Message = contract.DriftBusy, "busy"
		}
		return out, nil
	}, activity.RegisterOptions{Name: contract.ActDriftInstance})
	return env
}

// A sweep past 500 instances continues as new, carrying what is left and the outcomes worth
// reading; the last run sums them up.
func TestDriftSweepContinuesAsNewAndKeepsTheNotableOutcomes(t *testing.T) {
	var listed []contract.ListedInstance
	for i := range 620 {
		listed = append(listed, contract.ListedInstance{Ref: contract.Ref{Tenant: "acme", Name: fmt.Sprintf("web-%d", i)}, State: "Deployed"})
	}
	env := sweepEnv(listed)
	env.ExecuteWorkflow(contract.DriftSweepWorkflowName, contract.DriftScope{Concurrency: 8})
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(env.GetWorkflowError(), &can), "%v", env.GetWorkflowError())
	var next contract.DriftScope
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Resume)
	require.Len(t, next.Resume.Left, 120)
	require.Equal(t, 500, next.Resume.Checked)
	require.Equal(t, 1, next.Resume.Drifted)
	require.Len(t, next.Resume.Notable, 2, "web-7 drifted and web-8 busy; the clean ones are only counted")

	env = sweepEnv(nil)
	env.ExecuteWorkflow(contract.DriftSweepWorkflowName, next)
	require.NoError(t, env.GetWorkflowError())
	var res contract.DriftSweepResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, 620, res.Checked)
	require.Equal(t, 2, res.Drifted)
	require.Len(t, res.Instances, 122, "the notable two, then the last run's 120 in full")
}

// A sweep checks and remediates for its requester (the schedule's creator, carried in its scope
// across continue-as-new): each instance's check is sent on their behalf.
func TestDriftSweepChecksOnBehalfOfItsRequester(t *testing.T) {
	carol := identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-carol", Name: "carol", Groups: []string{"platform-admins"}}
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.DriftSweepWorkflow, workflow.RegisterOptions{Name: contract.DriftSweepWorkflowName})
	env.RegisterActivityWithOptions(func(context.Context, contract.DriftScope) ([]contract.ListedInstance, error) {
		return []contract.ListedInstance{{Ref: contract.Ref{Tenant: "acme", Name: "web"}, State: "Deployed"}}, nil
	}, activity.RegisterOptions{Name: contract.ActListDeployed})
	var sentFor []*identity.Actor
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.DriftInstanceInput) (contract.DriftInstanceOutput, error) {
		sentFor = append(sentFor, in.OnBehalfOf)
		return contract.DriftInstanceOutput{Ref: in.Ref, Outcome: contract.DriftClean}, nil
	}, activity.RegisterOptions{Name: contract.ActDriftInstance})
	env.ExecuteWorkflow(contract.DriftSweepWorkflowName, contract.DriftScope{Remediate: contract.RemediateDeploy, Schedule: "drift-nightly", Requester: &carol})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []*identity.Actor{&carol}, sentFor)
}
