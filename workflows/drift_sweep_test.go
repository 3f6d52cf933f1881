package workflows_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
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
	// Pages as the visibility store hands them out: a token that says where the next one starts.
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.DriftPageInput) (contract.DriftPage, error) {
		from, _ := strconv.Atoi(string(in.Page))
		to := min(from+in.Size, len(listed))
		page := contract.DriftPage{Instances: listed[from:to]}
		if to < len(listed) {
			page.Next = []byte(strconv.Itoa(to))
		}
		return page, nil
	}, activity.RegisterOptions{Name: contract.ActListDeployedPage})
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

func sweepFleet(n int) []contract.ListedInstance {
	var listed []contract.ListedInstance
	for i := range n {
		listed = append(listed, contract.ListedInstance{Ref: contract.Ref{Tenant: "acme", Name: fmt.Sprintf("web-%d", i)}, State: "Deployed"})
	}
	return listed
}

// A sweep lists a page of 500 a run and continues as new with the next page's token, the counts
// and the outcomes worth reading, never the fleet; the last run sums them up.
func TestDriftSweepPagesThroughTheFleetAndKeepsTheNotableOutcomes(t *testing.T) {
	listed := sweepFleet(1234)
	scope := contract.DriftScope{Concurrency: 8}
	for run := 1; ; run++ {
		env := sweepEnv(listed)
		env.ExecuteWorkflow(contract.DriftSweepWorkflowName, scope)
		var can *workflow.ContinueAsNewError
		if !errors.As(env.GetWorkflowError(), &can) {
			require.NoError(t, env.GetWorkflowError())
			require.Equal(t, 3, run, "1,234 instances are three pages of 500")
			var res contract.DriftSweepResult
			require.NoError(t, env.GetWorkflowResult(&res))
			require.Equal(t, 1234, res.Checked)
			require.Equal(t, 2, res.Drifted, "web-7 and web-600")
			require.Len(t, res.Instances, 3+234, "the notable three, then the last run's 234 in full")
			return
		}
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &scope))
		require.True(t, scope.Resume.Paged)
		require.Empty(t, scope.Resume.Left, "what is left of the fleet is not carried")
		require.Equal(t, []byte(strconv.Itoa(500*run)), scope.Resume.Page)
		require.Equal(t, 500*run, scope.Resume.Checked)
	}
}

// A sweep that started before pages (its first run listed the whole fleet) goes on as it began:
// the rest of its list is in its input, and it continues through it as before.
func TestDriftSweepFromBeforePagesContinuesAsNewAndKeepsTheNotableOutcomes(t *testing.T) {
	listed := sweepFleet(620)
	env := sweepEnv(listed)
	env.OnGetVersion("drift-sweep-pages", workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
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
	env.RegisterActivityWithOptions(func(context.Context, contract.DriftPageInput) (contract.DriftPage, error) {
		return contract.DriftPage{Instances: []contract.ListedInstance{{Ref: contract.Ref{Tenant: "acme", Name: "web"}, State: "Deployed"}}}, nil
	}, activity.RegisterOptions{Name: contract.ActListDeployedPage})
	var sentFor []*identity.Actor
	env.RegisterActivityWithOptions(func(_ context.Context, in contract.DriftInstanceInput) (contract.DriftInstanceOutput, error) {
		sentFor = append(sentFor, in.OnBehalfOf)
		return contract.DriftInstanceOutput{Ref: in.Ref, Outcome: contract.DriftClean}, nil
	}, activity.RegisterOptions{Name: contract.ActDriftInstance})
	env.ExecuteWorkflow(contract.DriftSweepWorkflowName, contract.DriftScope{Remediate: contract.RemediateDeploy, Schedule: "drift-nightly", Requester: &carol})
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, []*identity.Actor{&carol}, sentFor)
}
