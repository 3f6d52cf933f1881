package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/workflows"
)

// scripts/retire-version.sh lists, on a real dev server, the running run that never took a
// change's new branch (no TemporalChangeVersion for it) and not the one that did, then prints
// the histories that pin the old branch.
func TestRetireVersionListsTheRunsThatNeverTookTheNewBranch(t *testing.T) {
	ctx := context.Background()
	c, err := sdkclient.Dial(sdkclient.Options{HostPort: testsuite.Address(t), Logger: logging.NewTemporal(logging.Nop())})
	require.NoError(t, err)
	defer c.Close()
	change, ok := workflows.ChangeByID("lean-parked-instance")
	require.True(t, ok)
	require.Equal(t, []string{"InstanceWorkflow"}, change.Workflows)
	const tq = "retire-version"
	w := worker.New(c, tq, worker.Options{})
	// A parked run of the change's workflow type: the old code never called GetVersion for it.
	// Both took another change, so each run's TemporalChangeVersion holds a value.
	w.RegisterWorkflowWithOptions(func(ctx workflow.Context, newCode bool) error {
		workflow.GetVersion(ctx, "another-change", workflow.DefaultVersion, 1)
		if newCode {
			workflow.GetVersion(ctx, change.ID, workflow.DefaultVersion, change.Max)
		}
		workflow.GetSignalChannel(ctx, "stop").Receive(ctx, nil)
		return nil
	}, workflow.RegisterOptions{Name: change.Workflows[0]})
	require.NoError(t, w.Start())
	defer w.Stop()
	ids := map[bool]string{false: "retire-version/old-run", true: "retire-version/new-run"}
	for newCode, id := range ids {
		_, err := c.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: id, TaskQueue: tq}, change.Workflows[0], newCode)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.TerminateWorkflow(context.Background(), id, "", "test over") })
	}
	count := func(q string) int64 {
		r, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: q})
		if err != nil {
			return -1
		}
		return r.Count
	}
	// Both are visible, the new run with its change version, before anything is listed.
	waitFor(t, "both runs in visibility", func() bool {
		return count(`WorkflowId = "`+ids[false]+`" AND TemporalChangeVersion = "another-change-1"`) == 1 &&
			count(`WorkflowId = "`+ids[true]+`" AND TemporalChangeVersion = "`+fmt.Sprintf("%s-%d", change.ID, change.Max)+`"`) == 1
	})

	var listed []string
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query: change.RunningOnQuery(workflow.DefaultVersion) + ` AND TaskQueue = "` + tq + `"`})
	require.NoError(t, err)
	for _, e := range resp.Executions {
		listed = append(listed, e.Execution.WorkflowId)
	}
	require.Equal(t, []string{ids[false]}, listed)

	temporal, err := devenv.FindTemporal()
	require.NoError(t, err)
	cmd := exec.Command("../../scripts/retire-version.sh", change.ID)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+testsuite.Address(t), "SLIPWAY_TEMPORAL="+temporal)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, runWithin(cmd, 5*time.Minute), "%s", out.String())
	require.Contains(t, out.String(), ids[false])
	require.NotContains(t, out.String(), ids[true])
	require.Contains(t, out.String(), "testsuite/histories/lifecycle-v0", "the histories that pin the old branch")
}
