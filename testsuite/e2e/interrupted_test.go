package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/netcut"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// slowTF holds the state lock for a while: its provisioner sleeps during the create.
const slowTF = `resource "terraform_data" "slow" {
  input = {{ quote .Params.greeting }}
  provisioner "local-exec" {
    command = "exec sleep 10"
  }
}
`

// waitLimit is a safety net against a wedged run, not a pass/fail timing.
const waitLimit = 4 * time.Minute

// A worker host is lost mid-apply (SIGKILL plus a network that never closes its pg session):
// the retried apply fails fast on the stranded lock, the operator forces it by ID, and the
// deploy resumes and applies once.
func TestInterruptedApplyOnPGIsForceUnlockedAndResumed(t *testing.T) {
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "tfstate")
	pgAddr := fmt.Sprintf("%s:%d", pg.Host, pg.Port)
	cut := netcut.Start(t, pgAddr)
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.TFPGConn = conn; o.NoWorker = true })
	testsuite.PushFiles(t, e.GitOpsRepo, "add the slow stack", map[string][]byte{
		"stacks/slow/schema.yaml":             []byte(brokenSchema),
		"stacks/slow/terraform/main.tf.tmpl":  []byte(slowTF),
		"stacks/slow/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	ref := contract.Ref{Tenant: "pg", Name: "slow"}
	ws := terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name}
	ctx := context.Background()

	// The first worker is its own process and reaches PostgreSQL only through the proxy.
	first := startWorkerProcess(t, e, strings.Replace(conn, pgAddr, cut.Addr, 1))
	e.MustCLI(0, "create", "pg/slow", "-f", writeFile(t, "stack: slow\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "pg/slow")

	var lock *terraform.LockInfo
	waitFor(t, "the apply to hold the state lock", func() bool {
		require.NoError(t, first.Exited(), proc.LogTail(first.LogPath))
		info, held, err := e.Activities.Terraform.Lock(ctx, ws)
		require.NoError(t, err)
		if held && strings.Contains(info.Operation, "terraform apply") {
			lock = info
		}
		return lock != nil
	})
	require.Positive(t, cut.Connections(), "the first worker's terraform went through the proxy")
	cut.Sever()
	require.NoError(t, first.Kill())
	_, held, err := e.Activities.Terraform.Lock(ctx, ws)
	require.NoError(t, err)
	require.True(t, held, "PostgreSQL still sees the lost host's session and its lock")

	// A second worker, connected to PostgreSQL directly, takes over after the heartbeat timeout.
	second := worker.New(e.Client.Temporal, e.TaskQueue, worker.Options{Interceptors: e.Interceptors})
	require.NoError(t, workerapp.Register(second, e.Activities))
	require.NoError(t, second.Start())
	defer second.Stop()
	waitFor(t, "DeploymentFailed", func() bool { return e.Status("pg/slow").State == lifecycle.DeploymentFailed })

	st := e.Status("pg/slow")
	require.Equal(t, contract.TFApply, st.Failure.Step)
	require.Equal(t, contract.ErrStateLocked, st.Failure.Type)
	require.Contains(t, st.Failure.Error, lock.ID)
	require.Equal(t, 2, applyAttempts(t, e, st.Operation.Pipeline), "one killed attempt, one that failed fast on the lock: no loop")
	var leftover *contract.Leftover
	for i, l := range st.Failure.Leftovers {
		if l.Kind == contract.LeftoverLock {
			leftover = &st.Failure.Leftovers[i]
		}
	}
	require.NotNil(t, leftover, "leftovers: %+v", st.Failure.Leftovers)
	t.Logf("leftover: %+v", *leftover)
	host, _ := os.Hostname()
	require.Equal(t, lock.ID, leftover.ID)
	require.Contains(t, leftover.Detail, fmt.Sprintf("%s pid %d", host, first.Pid()), "the dead worker")
	require.Contains(t, leftover.Detail, "task queue "+e.TaskQueue)
	require.Contains(t, leftover.Detail, "since "+lock.Created)
	require.Contains(t, leftover.Detail, "terraform apply for "+st.Operation.Pipeline+", TerraformApply attempt 1")
	require.Contains(t, leftover.Cleanup, "slipway resolve pg/slow --force-unlock "+lock.ID)

	out := e.MustCLI(2, "resolve", "pg/slow", "--force-unlock", "not-the-lock", "--reason", "host lost")
	require.Contains(t, out.Stderr, `--force-unlock "not-the-lock" is not the lock the failed operation left; its terraform-lock leftover is `+lock.ID)
	_, held, err = e.Activities.Terraform.Lock(ctx, ws)
	require.NoError(t, err)
	require.True(t, held, "a refused request unlocks nothing")

	out = e.MustCLI(0, "resolve", "pg/slow", "--force-unlock", lock.ID, "--reason", "worker host lost")
	require.Contains(t, out.Stdout, "pg/slow is Deployed")
	st = e.Status("pg/slow")
	require.Equal(t, lifecycle.Deployed, st.State)
	require.Equal(t, 2, st.Operation.Attempt)
	require.Len(t, st.Decisions, 1)
	d := st.Decisions[0]
	require.Equal(t, lifecycle.DecisionResolve, d.Decision)
	require.Equal(t, "e2e", d.Actor)
	require.Equal(t, "worker host lost", d.Reason)
	require.Equal(t, lock.ID, d.ForceUnlock)
	require.Equal(t, "0", pg.Query(t, "tfstate", "select count(*) from public.slipway_terraform_locks"), "no record left")

	res := e.Resources(ref)
	require.Len(t, res, 1)
	require.Equal(t, "terraform_data.slow", res[0].Address)
	require.False(t, res[0].Tainted)
	tfst, err := e.Activities.Terraform.State(ctx, ws)
	require.NoError(t, err)
	// init writes the empty state (serial 1); the one apply that finished wrote serial 2.
	require.Equal(t, int64(2), tfst.Serial, "one apply wrote the state: the killed one never did, nothing ran twice")
	testsuite.RecordHistories(t, e.Client.Temporal, contract.InstanceWorkflowID(ref), "force-unlock")
}

// startWorkerProcess builds ./worker and runs it on the env's task queue and state dir.
func startWorkerProcess(t *testing.T, e *testsuite.Env, pgConn string) *proc.Process {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "slipway-worker")
	build := exec.Command("go", "build", "-o", bin, "github.com/slipway-dev/slipway/worker")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./worker: %s", out)
	cmd := exec.Command(bin)
	// The parent's environment carries whatever else workers need (e.g. a codec key).
	cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_TASK_QUEUE="+e.TaskQueue,
		"SLIPWAY_GITOPS_REPO="+e.GitOpsRepo, "SLIPWAY_STATE_DIR="+e.StateDir, "SLIPWAY_TF_PG_CONN="+pgConn,
		"SLIPWAY_DEPLOYER=none")
	p, err := proc.Start("worker", cmd, filepath.Join(dir, "worker.log"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Stop() })
	return p
}

// applyAttempts is how many attempts the pipeline's TerraformApply activity took.
func applyAttempts(t *testing.T, e *testsuite.Env, pipeline string) int {
	t.Helper()
	it := e.Client.Temporal.GetWorkflowHistory(context.Background(), pipeline, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	scheduled := map[int64]bool{}
	attempts := 0
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == contract.ActTerraformApply {
			scheduled[ev.GetEventId()] = true
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && scheduled[a.GetScheduledEventId()] {
			attempts += int(a.GetAttempt())
		}
	}
	require.Len(t, scheduled, 1, "apply scheduled once")
	return attempts
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s after %v", what, waitLimit)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
