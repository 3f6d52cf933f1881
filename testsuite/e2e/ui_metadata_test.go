package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
)

// What the Temporal UI shows beside the history: each workflow's summary, the instance's current
// details, and the stack and operation to filter on.
func TestWorkflowsCarrySummariesAndDetailsForTheUI(t *testing.T) {
	e := testsuite.NewEnv(t)
	ctx := context.Background()
	e.MustCLI(0, "create", "meta/web", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "meta/web", "--wait")
	st := e.Status("meta/web")
	keys, err := codec.FromEnv()
	require.NoError(t, err)
	dc := codec.DataConverter(keys) // summaries are payloads: encrypted like the rest

	summary := func(id string) string {
		d, err := e.Client.Temporal.DescribeWorkflowExecution(ctx, id, "")
		require.NoError(t, err)
		var s string
		require.NoError(t, dc.FromPayload(d.GetExecutionConfig().GetUserMetadata().GetSummary(), &s), id)
		return s
	}
	require.Equal(t, "instance meta/web", summary("instance/meta/web"))
	require.Equal(t, fmt.Sprintf("deploy meta/web from ConfigurationCreated (operation %s, attempt 1)", st.Operation.ID),
		summary(st.Operation.Pipeline))

	v, err := e.Client.Temporal.QueryWorkflow(ctx, "instance/meta/web", "", "__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	require.Regexp(t, `^Deployed; Ready Unknown \(NotDeployed\) as of 20\d\d-`, md.GetCurrentDetails())

	count, err := e.Client.Temporal.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: fmt.Sprintf(
		"TaskQueue = '%s' AND WorkflowType = '%s' AND InstanceStack = 'example' AND InstanceOperation = 'deploy'",
		e.TaskQueue, contract.InstanceWorkflowName)})
	require.NoError(t, err)
	require.EqualValues(t, 1, count.GetCount())
}
