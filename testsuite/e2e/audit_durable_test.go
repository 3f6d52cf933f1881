package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// The audit log outlives Temporal's retention: a decision the policy made is in the durable log
// (here the embedded default's file in the worker's state dir), and `slipway audit` still prints
// it once every history of the instance is gone, as it is once retention has run.
func TestAuditOutlivesTheInstancesHistory(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.Deployer = "none" })
	ctx := context.Background()
	ref := contract.Ref{Tenant: "durable", Name: "audited"}
	id := contract.InstanceWorkflowID(ref)
	_, err := e.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: id, TaskQueue: e.TaskQueue},
		contract.InstanceWorkflowName, instant.Parked(ref, "observer/"+e.TaskQueue, time.Now().UTC()))
	require.NoError(t, err)
	e.MustCLI(0, "new-run", ref.String())

	decided := func(args ...string) (found bool, source string) {
		out := e.MustCLI(0, append([]string{"audit", "--tenant", ref.Tenant, "--state-dir", e.StateDir}, args...)...).Stdout
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line == "" {
				continue
			}
			var entry client.AuditEntry
			require.NoError(t, json.Unmarshal([]byte(line), &entry), line)
			if entry.Operation == contract.UpdateNewRun && entry.Decision == contract.AuditAllowed && entry.PolicyHash != "" &&
				entry.Instance == ref.String() && entry.ActorKind == "person" {
				return true, entry.Source
			}
		}
		return false, ""
	}
	found, source := decided()
	require.True(t, found, "no allowed new-run decision in slipway audit: %s", e.MustCLI(0, "audit", "--tenant", ref.Tenant, "--state-dir", e.StateDir).Stdout)
	require.Equal(t, "log", source, "the decision is read from the durable log")

	// Retention: every run of the instance is deleted from Temporal.
	svc := e.Client.Temporal.WorkflowService()
	require.Eventually(t, func() bool {
		_ = e.Client.Temporal.TerminateWorkflow(ctx, id, "", "retention, simulated")
		runs, err := svc.ListWorkflowExecutions(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default",
			Query: "WorkflowId = '" + id + "'"})
		if err != nil {
			return false
		}
		for _, r := range runs.GetExecutions() {
			_, _ = svc.DeleteWorkflowExecution(ctx, &workflowservice.DeleteWorkflowExecutionRequest{Namespace: "default",
				WorkflowExecution: r.GetExecution()})
		}
		_, err = e.Client.Temporal.DescribeWorkflowExecution(ctx, id, "")
		var nf *serviceerror.NotFound
		return len(runs.GetExecutions()) == 0 && errors.As(err, &nf)
	}, time.Minute, time.Second, "the instance's histories were not deleted")

	found, source = decided()
	require.True(t, found, "the decision went with the history: the audit log did not outlive it")
	require.Equal(t, "log", source)
	found, _ = decided("--since", "1h")
	require.True(t, found, "--since reads the log too")
}
