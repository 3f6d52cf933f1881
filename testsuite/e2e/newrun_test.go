package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// `slipway new-run` moves a parked instance to a new run of its workflow, its state carried:
// the step a workflow version's retirement needs (docs/versions.md). The request is attested
// and decided by the policy like every other; an unattested one changes nothing.
func TestNewRunMovesAParkedInstanceToANewRunWithItsState(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.Deployer = "none" })
	ctx := context.Background()
	ref := contract.Ref{Tenant: "newrun", Name: "parked"}
	id := contract.InstanceWorkflowID(ref)
	first, err := e.Client.Temporal.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: id, TaskQueue: e.TaskQueue},
		contract.InstanceWorkflowName, instant.Parked(ref, "observer/"+e.TaskQueue, time.Now().UTC()))
	require.NoError(t, err)
	require.Equal(t, lifecycle.Deployed, e.Status(ref.String()).State)

	// Unattested, as from the Temporal UI or a bare client with no slipway key: refused, the run stays.
	bin, err := devenv.FindTemporal()
	require.NoError(t, err)
	forged := exec.Command(bin, "workflow", "update", "execute", "--workflow-id", id, "--name", contract.UpdateNewRun,
		"--address", testsuite.Address(t), "--namespace", "default")
	forged.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	out, err := forged.CombinedOutput()
	require.Error(t, err, "an unattested new-run must fail: %s", out)
	require.Contains(t, string(out), "Encoded failure (type: Unauthenticated", "without the payload key only the refusal's type reads")
	d, err := e.Client.Temporal.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	require.Equal(t, first.GetRunID(), d.GetWorkflowExecutionInfo().GetExecution().GetRunId(), "the forged request moved the instance")

	r := e.MustCLI(0, "new-run", ref.String())
	require.Contains(t, r.Stdout, "run "+first.GetRunID()+" ended")

	// The ended run continued as new; the next one runs with the same state.
	var next string
	waitFor(t, "the next run", func() bool {
		d, err := e.Client.Temporal.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			return false
		}
		next = d.GetWorkflowExecutionInfo().GetExecution().GetRunId()
		return next != first.GetRunID()
	})
	d, err = e.Client.Temporal.DescribeWorkflowExecution(ctx, id, first.GetRunID())
	require.NoError(t, err)
	require.Equal(t, "ContinuedAsNew", d.GetWorkflowExecutionInfo().GetStatus().String())
	st := e.Status(ref.String())
	require.Equal(t, lifecycle.Deployed, st.State)
	// The request was attested and decided by the policy, and its record moved with the state.
	var decided bool
	for _, line := range strings.Split(strings.TrimSpace(e.MustCLI(0, "audit", "--tenant", ref.Tenant).Stdout), "\n") {
		var entry client.AuditEntry
		require.NoError(t, json.Unmarshal([]byte(line), &entry), line)
		decided = decided || (entry.Operation == contract.UpdateNewRun && entry.Decision == "allowed" && entry.PolicyHash != "")
	}
	require.True(t, decided, "no allowed new-run decision in slipway audit --tenant %s", ref.Tenant)

	// A bad ref is refused before anything is sent.
	bad := e.CLI("new-run", "Not/AName")
	require.Equal(t, 2, bad.Code, bad.Stderr)
	require.True(t, strings.Contains(bad.Stderr, "TENANT/NAME"), bad.Stderr)
}
