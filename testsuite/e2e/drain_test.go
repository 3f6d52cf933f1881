package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/postgres"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// sleepyTF's apply takes seconds in a provider (time_sleep), then runs a provisioner that
// appends one line per run to a file (so a second run shows) and sleeps in a child process.
const sleepyTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "time_sleep" "wait" {
  create_duration = "8s"
}
resource "terraform_data" "hook" {
  depends_on = [time_sleep.wait]
  input      = {{ quote .Params.greeting }}
  provisioner "local-exec" {
    command     = "echo ran >> %s/{{ .Name }}.runs; sleep 2"
    environment = { DRAIN_MARK = "%s" }
  }
}
`

// On SIGTERM a worker stops polling and lets the running apply finish within its grace; with a
// grace shorter than the apply, terraform is interrupted (SIGINT), saves its state and unlocks,
// the worker reports the step as cut short by its stop and exits, and the next worker finishes
// the operation: nothing tainted, the provisioner ran once, nothing of the first worker left.
func TestSIGTERMDrainsTheWorkerAndInterruptsTerraformCleanly(t *testing.T) {
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "tfstate")
	// The worker processes inherit both, and their terraform gets the mirror and writes to runs;
	// the env's own runner, which reads the state back, sees the mirror too.
	runs := t.TempDir()
	useTimeMirror(t, runs)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.TFPGConn = conn; o.NoWorker = true })
	mark := fmt.Sprintf("drain-%d", time.Now().UnixNano())
	testsuite.PushFiles(t, e.GitOpsRepo, "add the sleepy stack", map[string][]byte{
		"stacks/sleepy/schema.yaml":             []byte(brokenSchema),
		"stacks/sleepy/terraform/main.tf.tmpl":  []byte(fmt.Sprintf(sleepyTF, tfmirror.TimeVersion, runs, mark)),
		"stacks/sleepy/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	bin := buildWorker(t)
	// A grace that is not a duration stops the worker before it connects, naming the variable.
	refused := exec.Command(bin)
	refused.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_WORKER_GRACE=300")
	out, err := refused.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), `SLIPWAY_WORKER_GRACE: "300" is not a positive duration`)
	var figures bytes.Buffer
	figure := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		t.Log(line)
		figures.WriteString(line + "\n")
	}

	// (a) A grace longer than the step: the apply finishes on the stopping worker, then it exits.
	w1 := startDrainWorker(t, e, bin, conn, "60s")
	a := contract.Ref{Tenant: "drain", Name: "long"}
	e.MustCLI(0, "create", "drain/long", "-f", writeFile(t, "stack: sleepy\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "drain/long")
	waitForApply(t, e, w1, a)
	took := sigterm(t, w1)
	figure("drain: SIGTERM -> exit with an apply running, grace 60s (the apply finishes first): %v", took.Round(time.Millisecond))
	require.Equal(t, 1, countRuns(t, runs, a), "the apply finished on the stopping worker")
	log := readLog(t, w1)
	require.Regexp(t, `"runningActivities": ?1`, log, "the stop says what was running")
	require.Regexp(t, `"cancelled": ?0`, log, "nothing was cut short")
	require.NoError(t, lockFree(t, e, a))

	// (b) A 1s grace: terraform is interrupted mid-apply; the next worker finishes the operation.
	w2 := startDrainWorker(t, e, bin, conn, "1s")
	waitDeployed(t, e, "drain/long")
	b := contract.Ref{Tenant: "drain", Name: "short"}
	e.MustCLI(0, "create", "drain/short", "-f", writeFile(t, "stack: sleepy\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "drain/short")
	waitForApply(t, e, w2, b)
	took = sigterm(t, w2)
	figure("drain: SIGTERM -> exit with an apply running, grace 1s (terraform interrupted): %v", took.Round(time.Millisecond))
	require.Empty(t, survivors(t, mark, e.StateDir), "nothing of the stopped worker's terraform survives it")
	require.NoError(t, lockFree(t, e, b), "the interrupted terraform released the pg lock")
	for _, r := range e.Resources(b) {
		require.False(t, r.Tainted, "%s tainted by the stop", r.Address)
	}
	require.Zero(t, countRuns(t, runs, b), "the stop came in time_sleep: the provisioner never started")
	log = readLog(t, w2)
	require.Regexp(t, `"cancelled": ?1`, log, "the grace ran out on the apply")
	require.Regexp(t, `"unfinished": ?0`, log, "the cut-short apply reported before the worker exited")

	w3 := startDrainWorker(t, e, bin, conn, "1s")
	waitDeployed(t, e, "drain/short")
	st := e.Status("drain/short")
	require.Nil(t, st.Failure, "a step cut short by a stop is not a failed step")
	require.Equal(t, 1, countRuns(t, runs, b), "the provisioner ran once, on the worker that finished")
	res := e.Resources(b)
	require.Len(t, res, 2)
	for _, r := range res {
		require.False(t, r.Tainted, "%s tainted", r.Address)
	}
	// The stop's own error, or the cancel the stopping worker's SDK sent the step when the grace ran
	// out (seen in about half the runs since this round, not yet explained); a heartbeat timeout
	// would be neither.
	cause := retriedApplyCause(t, e, st.Operation.Pipeline)
	figure("drain: the interrupted apply's recorded cause: %s", cause)
	require.Contains(t, []string{contract.ErrWorkerStopped, "untyped: context canceled"}, cause,
		"the apply was retried because its worker stopped, not after a heartbeat timeout")

	// (c) A 1s grace that runs out while the provisioner runs: terraform's SIGINT waits for it
	// (it would kill its shell and taint the resource, and the retry would run it again).
	c := contract.Ref{Tenant: "drain", Name: "held"}
	e.MustCLI(0, "create", "drain/held", "-f", writeFile(t, "stack: sleepy\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "drain/held")
	waitFor(t, "drain/held's provisioner to start", func() bool {
		require.NoError(t, w3.Exited(), proc.LogTail(w3.LogPath))
		return countRuns(t, runs, c) == 1
	})
	took = sigterm(t, w3)
	figure("drain: SIGTERM -> exit with a provisioner running, grace 1s (SIGINT held for it): %v", took.Round(time.Millisecond))
	require.Empty(t, survivors(t, mark, e.StateDir), "nothing of the stopped worker's terraform survives it")
	require.NoError(t, lockFree(t, e, c))
	for _, r := range e.Resources(c) {
		require.False(t, r.Tainted, "%s tainted by the stop", r.Address)
	}
	w4 := startDrainWorker(t, e, bin, conn, "")
	waitDeployed(t, e, "drain/held")
	require.Equal(t, 1, countRuns(t, runs, c), "the provisioner ran once")
	res = e.Resources(c)
	require.Len(t, res, 2)
	for _, r := range res {
		require.False(t, r.Tainted, "%s tainted", r.Address)
	}

	// No step running: the stop is immediate.
	took = sigterm(t, w4)
	figure("drain: SIGTERM -> exit with no step running: %v", took.Round(time.Millisecond))
	require.Regexp(t, `"runningActivities": ?0`, readLog(t, w4))
	if dir := os.Getenv("SLIPWAY_FIGURES_DIR"); dir != "" { // make test prints it
		require.NoError(t, os.WriteFile(filepath.Join(dir, "drain.txt"), figures.Bytes(), 0o644))
	}
}

// waitDeployed waits for ref's deploy to end on the next worker, failing at once if it failed.
func waitDeployed(t *testing.T, e *testsuite.Env, ref string) {
	t.Helper()
	waitFor(t, ref+" Deployed on the next worker", func() bool {
		st := e.Status(ref)
		require.NotEqual(t, lifecycle.DeploymentFailed, st.State, "failure: %+v", st.Failure)
		return st.State == lifecycle.Deployed
	})
}

// buildWorker builds ./worker once for the test.
func buildWorker(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "slipway-worker")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/slipway-dev/slipway/worker").CombinedOutput()
	require.NoError(t, err, "go build ./worker: %s", out)
	return bin
}

// startDrainWorker runs the worker binary on the env's task queue with the grace given ("" is the default).
func startDrainWorker(t *testing.T, e *testsuite.Env, bin, pgConn, grace string) *proc.Process {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_TASK_QUEUE="+e.TaskQueue,
		"SLIPWAY_GITOPS_REPO="+e.GitOpsRepo, "SLIPWAY_STATE_DIR="+e.StateDir, "SLIPWAY_TF_PG_CONN="+pgConn,
		"SLIPWAY_DEPLOYER=none")
	if grace != "" {
		cmd.Env = append(cmd.Env, "SLIPWAY_WORKER_GRACE="+grace)
	}
	p, err := proc.Start("worker", cmd, filepath.Join(dir, "worker.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

// waitForApply waits until ref's terraform apply holds the state lock: time_sleep is sleeping.
func waitForApply(t *testing.T, e *testsuite.Env, w *proc.Process, ref contract.Ref) {
	t.Helper()
	ws := terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name}
	waitFor(t, ref.Tenant+"/"+ref.Name+"'s apply", func() bool {
		require.NoError(t, w.Exited(), proc.LogTail(w.LogPath))
		info, held, err := e.Activities.Terraform.Lock(context.Background(), ws)
		require.NoError(t, err)
		return held && strings.Contains(info.Operation, "terraform apply")
	})
}

// sigterm sends SIGTERM to the worker alone (as Kubernetes does to a container's PID 1) and
// returns how long it took to exit.
func sigterm(t *testing.T, w *proc.Process) time.Duration {
	t.Helper()
	start := time.Now()
	require.NoError(t, syscall.Kill(w.Pid(), syscall.SIGTERM))
	// A fine poll for the figure; waitLimit is only the safety net.
	for w.Exited() == nil {
		require.Less(t, time.Since(start), waitLimit, "the worker did not exit")
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(start)
	require.Contains(t, w.Exited().Error(), "exited: <nil>", "a clean exit: %s", proc.LogTail(w.LogPath))
	return took
}

func readLog(t *testing.T, w *proc.Process) string {
	t.Helper()
	b, err := os.ReadFile(w.LogPath)
	require.NoError(t, err)
	return string(b)
}

// countRuns is how many times ref's provisioner ran.
func countRuns(t *testing.T, dir string, ref contract.Ref) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ref.Name+".runs"))
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "ran\n")
}

// lockFree says whether ref's pg state lock is free.
func lockFree(t *testing.T, e *testsuite.Env, ref contract.Ref) error {
	t.Helper()
	info, held, err := e.Activities.Terraform.Lock(context.Background(), terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name})
	require.NoError(t, err)
	if held {
		return fmt.Errorf("lock held: %+v", *info)
	}
	return nil
}

// survivors lists the processes that carry the provisioner's marker or run in a terraform
// working directory under stateDir (terraform and its providers), from /proc.
func survivors(t *testing.T, mark, stateDir string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []string
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, _ := os.ReadFile("/proc/" + ent.Name() + "/environ")
		cwd, _ := os.Readlink("/proc/" + ent.Name() + "/cwd")
		if bytes.Contains(env, []byte("DRAIN_MARK="+mark)) || strings.HasPrefix(cwd, stateDir+string(filepath.Separator)) {
			cmdline, _ := os.ReadFile("/proc/" + ent.Name() + "/cmdline")
			out = append(out, fmt.Sprintf("pid %d: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return out
}

// retriedApplyCause is the failure type of the TerraformApply attempt a retry followed.
func retriedApplyCause(t *testing.T, e *testsuite.Env, pipeline string) string {
	t.Helper()
	it := e.Client.Temporal.GetWorkflowHistory(context.Background(), pipeline, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	scheduled := map[int64]bool{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == contract.ActTerraformApply {
			scheduled[ev.GetEventId()] = true
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] && a.GetAttempt() > 1 {
			// Read through the codec, as status reads it; a bare "context canceled" has no type.
			var appErr *temporal.ApplicationError
			if errors.As(e.Client.Failures.FailureToError(a.GetLastFailure()), &appErr) {
				if appErr.Type() == "" {
					return "untyped: " + appErr.Message()
				}
				return appErr.Type()
			}
			return "not an application error: " + a.GetLastFailure().String()
		}
	}
	return ""
}
