package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// A direct Temporal client without slipway's key (the real temporal CLI, as anyone who can reach
// the frontend has it) changes nothing: a forged approval signal to the pipeline waiting for
// approval, a forged step signal to the instance, forged approve and cancel updates, and a forged
// start of a destroy pipeline are refused; `slipway events` shows each refusal; the approval
// then given through slipway still works.
func TestUnattestedRequestsChangeNothing(t *testing.T) {
	bin := temporalBin(t)
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "a guarded stack", guardedStack("guarded", "approval: {policy: always, approvers: [alice]}\n", nil))
	const ref = "attk/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: guarded\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "-f", writeFile(t, "stack: guarded\nparameters:\n  greeting: hi\n"))
	var w *contract.ApprovalWait
	// alice reads the plan awaiting her approval (the status shows it only to an approver).
	asAlice := func() (st contract.Status) { as(t, "alice", func() { st = e.Status(ref) }); return st }
	require.Eventually(t, func() bool { w = asAlice().Approval; return w != nil && w.Hash != "" }, time.Minute, 50*time.Millisecond)
	before := asAlice()
	instance := "instance/" + ref

	var (
		out string
		err error
	)
	temporalCLI := func(args ...string) (string, error) { return unattested(t, bin, args...) }
	// The approval signal the pipeline waits for, as mallory would send it from the Temporal UI.
	out, err = temporalCLI("workflow", "signal", "--workflow-id", w.Pipeline, "--name", contract.SignalApprovalDecision,
		"--input", `{"verb":"approve","hash":"`+w.Hash+`","actor":"alice","at":"`+time.Now().UTC().Format(time.RFC3339)+`"}`)
	require.NoError(t, err, out)
	// A step signal to the instance, claiming its deploy succeeded.
	out, err = temporalCLI("workflow", "signal", "--workflow-id", instance, "--name", contract.SignalStep,
		"--input", `{"opID":"`+before.Operation.ID+`","attempt":1,"step":{"name":"apply","status":"succeeded","attempt":1}}`)
	require.NoError(t, err, out)
	// Updates: the approval itself, and a cancel of the running deploy.
	out, err = temporalCLI("workflow", "update", "execute", "--workflow-id", instance, "--name", contract.UpdateApprove,
		"--input", `{"plan":"`+w.Hash+`","actor":"alice"}`)
	require.Error(t, err, "a forged approve update must fail: %s", out)
	// Without the payload key the refusal reads only as its type: its message is sealed (slipway events reads it).
	require.Contains(t, out, "Encoded failure (type: Unauthenticated")
	out, err = temporalCLI("workflow", "update", "execute", "--workflow-id", instance, "--name", contract.UpdateCancel,
		"--input", `{"actor":"mallory"}`)
	require.Error(t, err, "a forged cancel update must fail: %s", out)
	require.Contains(t, out, "Encoded failure (type: Unauthenticated")

	// The refusals are in the instance's events, and nothing moved.
	var events string
	require.Eventually(t, func() bool {
		events = e.MustCLI(0, "events", ref).Stdout
		return strings.Contains(events, "signal "+contract.SignalApprovalDecision+" refused (sent to "+w.Pipeline+")") &&
			strings.Contains(events, "signal "+contract.SignalStep+" refused")
	}, time.Minute, 100*time.Millisecond, "events:\n%s", events)
	for _, line := range []string{"approve refused: refused: no verified identity", "cancel refused: refused: no verified identity",
		"carries no slipway attestation"} {
		require.Contains(t, events, line)
	}
	t.Logf("events:\n%s", events)
	require.NotContains(t, events, "step apply succeeded", "the forged step is no step")
	after := asAlice()
	require.Equal(t, lifecycle.Deploying, after.State)
	require.NotNil(t, after.Approval, "still awaiting approval")
	require.Equal(t, w.Hash, after.Approval.Hash)
	require.Equal(t, before.Operation.Steps, after.Operation.Steps)
	require.Equal(t, contract.ResultRunning, after.Operation.Result)
	require.Len(t, after.ApprovalLog, len(before.ApprovalLog), "no approval recorded")
	require.Empty(t, after.Gates)

	// A forged start of a destroy pipeline runs nothing and fails at once.
	out, err = temporalCLI("workflow", "start", "--type", contract.PipelineName(lifecycle.OpDestroy), "--task-queue", e.TaskQueue,
		"--workflow-id", "forged-destroy", "--input", `{"ref":{"tenant":"attk","name":"web"},"operation":"destroy","opID":"x","attempt":1}`)
	require.NoError(t, err, out)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = e.Client.Temporal.GetWorkflow(ctx, "forged-destroy", "").Get(ctx, nil)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "the forged start fails: %v", err)
	require.Equal(t, attest.ErrorType, app.Type())
	it := e.Client.Temporal.GetWorkflowHistory(ctx, "forged-destroy", "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
			enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, enumspb.EVENT_TYPE_TIMER_STARTED:
			t.Fatalf("the forged pipeline did something: %v", ev.GetEventType())
		}
	}
	require.Equal(t, lifecycle.Deploying, e.Status(ref).State)

	// Through slipway, with its key, the approval still goes through.
	as(t, "alice", func() { e.MustCLI(0, "approve", ref, "--plan", w.Hash) })
	require.Eventually(t, func() bool {
		st := e.Status(ref)
		return st.State == lifecycle.Deployed && st.Operation.Result == contract.ResultSucceeded
	}, 2*time.Minute, 100*time.Millisecond)
	testsuite.RecordHistories(t, e.Client.Temporal, instance, "verified-requests-v2")
}

func temporalBin(t *testing.T) string {
	t.Helper()
	bin, err := devenv.FindTemporal()
	require.NoError(t, err)
	return bin
}

// unattested runs the real temporal CLI against the test's server as a caller without slipway's
// key: nothing of the test process's environment reaches it.
func unattested(t *testing.T, bin string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, append(args, "--address", testsuite.Address(t), "--namespace", "default")...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	return string(out), err
}
