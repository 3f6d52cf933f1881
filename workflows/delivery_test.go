package workflows_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/workflows"
)

func deliveryEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.DeliveryWorkflow, workflow.RegisterOptions{Name: contract.DeliveryWorkflowName})
	env.RegisterActivityWithOptions(func(context.Context, contract.SubmitInput) (contract.DeliveryOutcome, error) {
		return contract.DeliveryOutcome{}, nil
	}, activity.RegisterOptions{Name: contract.ActSubmitCommand})
	env.RegisterActivityWithOptions(func(context.Context, contract.MergeRange) ([]contract.DeliveryCommand, error) {
		return nil, nil
	}, activity.RegisterOptions{Name: contract.ActChangedInstances})
	return env
}

// Each command is submitted once, keyed by its place in the delivery; a refusal is an
// outcome, and so is a submission that kept failing: the record never loses a command.
func TestDeliveryRecordsAnOutcomePerCommand(t *testing.T) {
	env := deliveryEnv(t)
	var keys []int
	env.OnActivity(contract.ActSubmitCommand, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.SubmitInput) (contract.DeliveryOutcome, error) {
			keys = append(keys, in.Index)
			switch in.Command.Ref.Name {
			case "busy":
				return contract.DeliveryOutcome{Instance: in.Command.Ref.String(), Error: "rejected: acme/busy is busy"}, nil
			case "broken":
				return contract.DeliveryOutcome{}, temporal.NewNonRetryableApplicationError("forge gone", "Gone", nil)
			}
			return contract.DeliveryOutcome{Instance: in.Command.Ref.String(), Started: true, Request: in.Delivery}, nil
		})
	in := contract.Delivery{Provider: "github", ID: "d-1", Actor: "webhook", Commands: []contract.DeliveryCommand{
		{Operation: "provision", Ref: contract.Ref{Tenant: "acme", Name: "a"}},
		{Operation: "deploy", Ref: contract.Ref{Tenant: "acme", Name: "busy"}},
		{Operation: "deploy", Ref: contract.Ref{Tenant: "acme", Name: "broken"}},
		{Operation: "deprovision", Ref: contract.Ref{Tenant: "acme", Name: "old"}},
	}, Refused: []contract.DeliveryOutcome{{Error: "commit c1: line 2: bad"}}}
	env.ExecuteWorkflow(contract.DeliveryWorkflowName, in)
	require.NoError(t, env.GetWorkflowError())
	var res contract.DeliveryResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, "github/d-1", res.Delivery)
	require.Len(t, res.Outcomes, 5)
	require.Equal(t, "commit c1: line 2: bad", res.Outcomes[0].Error, "the server's refusals stay on record")
	require.True(t, res.Outcomes[1].Started)
	require.Contains(t, res.Outcomes[2].Error, "busy")
	require.Contains(t, res.Outcomes[3].Error, "forge gone")
	require.Equal(t, "acme/broken", res.Outcomes[3].Instance)
	require.Contains(t, res.Outcomes[4].Error, "--allow-deprovision", "checked again in the workflow")
	require.Equal(t, []int{0, 1, 2}, keys, "one submission per command, keyed by its index")
}

// A merged PR's commands come from the repository, read by a worker after the 202.
func TestDeliveryReadsAMergesChanges(t *testing.T) {
	env := deliveryEnv(t)
	env.OnActivity(contract.ActChangedInstances, mock.Anything, contract.MergeRange{Base: "b", Merge: "m"}).Return(
		[]contract.DeliveryCommand{{Operation: "deploy", Ref: contract.Ref{Tenant: "acme", Name: "web"}, Rev: "m"}}, nil)
	env.OnActivity(contract.ActSubmitCommand, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.SubmitInput) (contract.DeliveryOutcome, error) {
			require.Equal(t, "m", in.Command.Rev)
			return contract.DeliveryOutcome{Instance: in.Command.Ref.String(), Started: true}, nil
		})
	env.ExecuteWorkflow(contract.DeliveryWorkflowName, contract.Delivery{Provider: "gitea", ID: "p", Merge: &contract.MergeRange{Base: "b", Merge: "m"}})
	var res contract.DeliveryResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Len(t, res.Outcomes, 1)
	require.True(t, res.Outcomes[0].Started)

	env = deliveryEnv(t)
	env.OnActivity(contract.ActChangedInstances, mock.Anything, mock.Anything).Return(nil,
		temporal.NewNonRetryableApplicationError("no such commit", contract.ErrNotFound, errors.New("x")))
	env.ExecuteWorkflow(contract.DeliveryWorkflowName, contract.Delivery{Provider: "gitea", ID: "q", Merge: &contract.MergeRange{Base: "b", Merge: "gone"}})
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Contains(t, res.Outcomes[0].Error, "no such commit", "an unreadable merge is recorded, not dropped")
}

// A batch files each delivery under its own ID; a delivery already filed is a duplicate and
// runs nothing again.
func TestDeliveryBatchFilesEachDeliveryOnce(t *testing.T) {
	env := deliveryEnv(t)
	env.RegisterWorkflowWithOptions(workflows.DeliveryBatchWorkflow, workflow.RegisterOptions{Name: contract.DeliveryBatchWorkflowName})
	submitted := 0
	env.OnActivity(contract.ActSubmitCommand, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in contract.SubmitInput) (contract.DeliveryOutcome, error) {
			submitted++
			return contract.DeliveryOutcome{Started: true}, nil
		})
	cmd := []contract.DeliveryCommand{{Operation: "archive", Ref: contract.Ref{Tenant: "acme", Name: "web"}}}
	a := contract.Delivery{Provider: "github", ID: "a", Commands: cmd}
	b := contract.Delivery{Provider: "github", ID: "b", Commands: cmd}
	env.ExecuteWorkflow(contract.DeliveryBatchWorkflowName, []contract.Delivery{a, b, a})
	require.NoError(t, env.GetWorkflowError())
	var res workflows.BatchResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, []string{"delivery/github/a", "delivery/github/b"}, res.Filed)
	require.Equal(t, []string{"delivery/github/a"}, res.Duplicates, "%+v", res)
	require.Equal(t, 2, submitted, "the duplicate ran nothing")
}
