package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/slipway-dev/slipway/activities"
	"github.com/slipway-dev/slipway/examples"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/postgres"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// The example stack "timed" on the real hashicorp/time provider, offered only through a
// filesystem mirror, on three stateless worker processes that run one at a time: create, deploy,
// update (replaces the time_sleep), plan, an update that re-creates time_static, a worker whose
// disk was wiped, destroy and deprovision. Every worker applies; every init uses the versions
// recorded at the first one; a lock file the mirror cannot satisfy is refused with exit 2. Once
// per engine; the deploy with a 30s apply (slipway's share) only on $SLIPWAY_TEST_ENGINE
// (default terraform), so the other engine costs half a minute less.
func TestRealProviderOnStatelessWorkers(t *testing.T) {
	pg := postgres.Start(t)
	bin := buildWorker(t)
	slow, err := testsuite.TestEngine(config.EngineTerraform)
	require.NoError(t, err)
	var figures bytes.Buffer
	for _, engine := range []string{config.EngineTerraform, config.EngineOpenTofu} {
		t.Run(engine, func(t *testing.T) {
			realProviderOnStatelessWorkers(t, pg, bin, engine, engine == slow, &figures)
		})
	}
	if dir := os.Getenv("SLIPWAY_FIGURES_DIR"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "providers.txt"), figures.Bytes(), 0o644))
	}
}

func realProviderOnStatelessWorkers(t *testing.T, pg *postgres.Server, bin, engine string, slowApply bool, figures *bytes.Buffer) {
	began := time.Now()
	ctx := context.Background()
	conn := pg.CreateDB(t, "tfstate_"+engine)
	mirror := tfmirror.Layout(t, tfmirror.Time())
	// The registry host the engine reads hashicorp/time as (OpenTofu's own for opentofu).
	host := "registry.terraform.io"
	if engine == config.EngineOpenTofu {
		host = "registry.opentofu.org"
	}
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.TFPGConn = conn; o.NoWorker = true })
	stack, err := examples.StackFiles("timed")
	require.NoError(t, err)
	if engine != config.EngineTerraform {
		stack["schema.yaml"] = testsuite.WithEngine(stack["schema.yaml"], engine)
	}
	seed := map[string][]byte{}
	for p, d := range stack {
		seed["stacks/timed/"+p] = d
		seed["stacks/timedlocked/"+p] = d
	}
	// A lock file pinning a release the mirror does not have.
	seed["stacks/timedlocked/terraform/.terraform.lock.hcl"] = []byte(`provider "` + host + `/hashicorp/time" {
  version     = "0.13.0"
  constraints = "~> 0.14"
  hashes      = ["h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
}
`)
	testsuite.PushFiles(t, e.GitOpsRepo, "add the timed stacks", seed)
	disks := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	pids := map[int]int{} // worker pid -> worker index
	start := func(i int) *proc.Process {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_TASK_QUEUE="+e.TaskQueue,
			"SLIPWAY_GITOPS_REPO="+e.GitOpsRepo, "SLIPWAY_STATE_DIR="+disks[i], "SLIPWAY_TF_PG_CONN="+conn,
			"SLIPWAY_DEPLOYER=none", "SLIPWAY_PROVIDER_MIRROR="+mirror.Dir)
		p, err := proc.Start(fmt.Sprintf("worker%d", i), cmd, filepath.Join(t.TempDir(), "worker.log"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.Stop() })
		pids[p.Pid()] = i
		return p
	}
	figure := func(format string, args ...any) {
		line := engine + ": " + fmt.Sprintf(format, args...)
		t.Log(line)
		figures.WriteString(line + "\n")
	}
	ref := contract.Ref{Tenant: "tm", Name: "app"}
	reader := mirrorHost(t, e, conn, mirror.Dir)
	born := func() string {
		head, err := e.Activities.Forge.Head(ctx)
		require.NoError(t, err)
		require.NoError(t, reader.TerraformInit(ctx, contract.TerraformInput{Ref: ref, OpID: "read", Revision: head}))
		out, err := reader.Terraform.Outputs(ctx, terraform.Workspace{Tenant: ref.Tenant, Name: ref.Name, Schema: ref.Derived().Schema})
		require.NoError(t, err)
		s, _ := out["born"].(string)
		require.NotEmpty(t, s, "outputs: %v", out)
		return s
	}
	applied := map[int]int{}
	deploy := func(what string, args ...string) []activityRun {
		began := time.Now()
		e.MustCLI(0, append([]string{"deploy", "tm/app", "--wait"}, args...)...)
		wall := time.Since(began)
		st := e.Status("tm/app")
		require.Equal(t, lifecycle.Deployed, st.State)
		runs := activityRuns(t, e, st.Operation.Pipeline, pids)
		for _, r := range runs {
			if r.name == contract.ActTerraformApply {
				require.GreaterOrEqual(t, r.worker, 0, "applied by one of the test's workers")
				applied[r.worker]++
				lock, err := os.ReadFile(filepath.Join(disks[r.worker], "work/tm/app/.terraform.lock.hcl"))
				require.NoError(t, err)
				assert.Contains(t, string(lock), `version     = "`+tfmirror.TimeVersion+`"`, "worker %d used the recorded version", r.worker)
			}
		}
		figure("%s: %s", what, describeRuns(runs, wall))
		return runs
	}

	// Worker 0, empty disk: create and the first deploy.
	w := start(0)
	e.MustCLI(0, "create", "tm/app", "-f", writeFile(t, "stack: timed\nparameters:\n  sleep: 2s\n"), "--wait")
	deploy("deploy (worker 0, empty disk)")
	born1 := born()
	// The operator publishes a newer release: the instance keeps the versions recorded at its
	// first init, on every worker (without the record, an empty disk would take 0.99.0).
	newer := filepath.Join(mirror.Dir, host, "hashicorp/time/0.99.0/linux_amd64")
	require.NoError(t, os.MkdirAll(newer, 0o755))
	provider, err := os.ReadFile(tfmirror.Time().Binary)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(newer, "terraform-provider-time_v0.99.0"), provider, 0o755))

	// Worker 1, empty disk: an update replaces the time_sleep; time_static stays.
	require.NoError(t, w.Stop())
	w = start(1)
	deploy("update generation 2 (worker 1, empty disk)", "-f", writeFile(t, "stack: timed\nparameters:\n  sleep: 2s\n  generation: 2\n"))
	st := e.Status("tm/app")
	require.NotNil(t, st.Operation.Plan)
	assert.Equal(t, 1, st.Operation.Plan.Add)
	assert.Equal(t, 1, st.Operation.Plan.Destroy, "the time_sleep is replaced")
	assert.Equal(t, born1, born(), "time_static was not re-created")

	// A dry run on the warm worker 1 shows the replacement and changes nothing.
	res := e.MustCLI(0, "plan", "tm/app", "-f", writeFile(t, "stack: timed\nparameters:\n  sleep: 2s\n  generation: 3\n"), "-o", "json")
	assert.Contains(t, res.Stdout, "time_sleep.apply")
	figure("plan (worker 1, warm): %s", describeRuns(activityRuns(t, e, e.Status("tm/app").Operation.Pipeline, pids), 0))
	assert.Equal(t, born1, born())

	// Worker 2, empty disk: a lock file the mirror cannot satisfy is refused, naming it; then an
	// update re-creates time_static.
	require.NoError(t, w.Stop())
	w = start(2)
	bad := e.CLI("create", "tm/locked", "-f", writeFile(t, "stack: timedlocked\n"), "--wait")
	require.Equal(t, 2, bad.Code, "stdout %s stderr %s", bad.Stdout, bad.Stderr)
	assert.Contains(t, bad.Stderr, "terraform/.terraform.lock.hcl")
	assert.Contains(t, bad.Stderr, `version 0.13.0 for linux_amd64 is not in the provider mirror`)
	deploy("update epoch 2 (worker 2, empty disk)", "-f", writeFile(t, "stack: timed\nparameters:\n  sleep: 2s\n  generation: 2\n  epoch: \"2\"\n"))
	born2 := born()
	assert.NotEqual(t, born1, born2, "time_static re-created when its trigger changed")

	// Slipway's share of a deploy whose apply takes 30s (the first deploy of another instance),
	// on the warm worker 2: the pipeline's time outside terraform's activities.
	if slowApply {
		slowDeploy(t, e, pids, figure)
	}

	// Worker 0 again, its disk wiped: an update, then destroy and deprovision.
	require.NoError(t, w.Stop())
	require.NoError(t, os.RemoveAll(disks[0]))
	require.NoError(t, os.MkdirAll(disks[0], 0o700))
	w = start(0)
	deploy("update generation 5 (worker 0, disk wiped)", "-f", writeFile(t, "stack: timed\nparameters:\n  sleep: 2s\n  generation: 5\n  epoch: \"2\"\n"))
	assert.Equal(t, born2, born())
	e.MustCLI(0, "destroy", "tm/app", "--wait")
	assert.Empty(t, e.Status("tm/app").Failure)
	e.MustCLI(0, "deprovision", "tm/app", "--yes", "--wait")
	require.Equal(t, lifecycle.Deprovisioned, e.Status("tm/app").State)

	for i := range disks {
		assert.Positive(t, applied[i], "worker %d applied", i)
	}
	// Every cache holds the recorded version (worker 2's also 0.99.0 when it deployed tm/slow,
	// created after the newer release).
	for i, d := range disks {
		got, err := filepath.Glob(filepath.Join(d, "plugin-cache", host, "hashicorp/time/*"))
		require.NoError(t, err)
		require.NotEmpty(t, got, "worker %d's cache", i)
		assert.Equal(t, tfmirror.TimeVersion, filepath.Base(got[0]), "worker %d", i)
	}
	locks := pg.Query(t, "tfstate_"+engine, "select count(*) from slipway_provider_locks where tenant = 'tm' and name = 'app'")
	assert.Equal(t, "0", strings.TrimSpace(locks), "deprovision forgot the recorded lock files")
	figure("whole run %v", time.Since(began).Round(time.Second))
}

// slowDeploy deploys tm/slow, whose apply sleeps 30s, and prints slipway's share of it.
func slowDeploy(t *testing.T, e *testsuite.Env, pids map[int]int, figure func(string, ...any)) {
	t.Helper()
	e.MustCLI(0, "create", "tm/slow", "-f", writeFile(t, "stack: timed\nparameters:\n  sleep: 30s\n"), "--wait")
	began := time.Now()
	e.MustCLI(0, "deploy", "tm/slow", "--wait")
	wall := time.Since(began)
	slow := e.Status("tm/slow")
	require.Equal(t, lifecycle.Deployed, slow.State)
	runs := activityRuns(t, e, slow.Operation.Pipeline, pids)
	pipeline := pipelineWall(t, e, slow.Operation.Pipeline)
	var tf, apply time.Duration
	for _, r := range runs {
		tf += r.took
		if r.name == contract.ActTerraformApply {
			apply = r.took
		}
	}
	require.GreaterOrEqual(t, apply, 30*time.Second, "the apply slept")
	figure("deploy with a 30s apply (worker 2, warm): %s", describeRuns(runs, wall))
	figure("30s apply: pipeline %v, terraform activities %v (apply %v): slipway's share %.2f%% of the pipeline (%.2f%% of the CLI's wall %v); everything but the apply %.2f%%",
		pipeline.Round(time.Millisecond), tf.Round(time.Millisecond), apply.Round(time.Millisecond),
		100*float64(pipeline-tf)/float64(pipeline), 100*float64(wall-tf)/float64(wall), wall.Round(time.Millisecond),
		100*float64(pipeline-apply)/float64(pipeline))
}

// mirrorHost is another worker's activities with the provider mirror, for reading the state.
func mirrorHost(t *testing.T, e *testsuite.Env, conn, mirror string) *activities.Activities {
	t.Helper()
	acts, err := workerapp.NewActivities(workerapp.Config{TaskQueue: e.TaskQueue, GitOpsRepo: e.GitOpsRepo, StateDir: t.TempDir(),
		TFPGConn: conn, StorePGConn: conn, Keys: e.Keyring(t), Deployer: "none", ProviderMirror: mirror})
	require.NoError(t, err)
	return acts
}

// activityRun is one terraform activity of a pipeline: which worker ran it and for how long.
type activityRun struct {
	name   string
	worker int
	took   time.Duration
}

// activityRuns reads a pipeline's terraform activities from its history (started to completed).
func activityRuns(t *testing.T, e *testsuite.Env, pipeline string, pids map[int]int) []activityRun {
	t.Helper()
	it := e.Client.Temporal.GetWorkflowHistory(context.Background(), pipeline, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	names := map[int64]string{}
	started := map[int64]struct {
		at     time.Time
		worker int
	}{}
	var out []activityRun
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		switch {
		case ev.GetActivityTaskScheduledEventAttributes() != nil:
			n := ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName()
			if strings.HasPrefix(n, "Terraform") {
				names[ev.GetEventId()] = n
			}
		case ev.GetActivityTaskStartedEventAttributes() != nil:
			a := ev.GetActivityTaskStartedEventAttributes()
			pid, _ := strconv.Atoi(strings.SplitN(a.GetIdentity(), "@", 2)[0])
			w, ok := pids[pid]
			if !ok {
				w = -1
			}
			started[a.GetScheduledEventId()] = struct {
				at     time.Time
				worker int
			}{ev.GetEventTime().AsTime(), w}
		case ev.GetActivityTaskCompletedEventAttributes() != nil:
			a := ev.GetActivityTaskCompletedEventAttributes()
			if n, ok := names[a.GetScheduledEventId()]; ok {
				s := started[a.GetScheduledEventId()]
				out = append(out, activityRun{name: n, worker: s.worker, took: ev.GetEventTime().AsTime().Sub(s.at)})
			}
		}
	}
	return out
}

// pipelineWall is the pipeline workflow's time from start to completion.
func pipelineWall(t *testing.T, e *testsuite.Env, pipeline string) time.Duration {
	t.Helper()
	it := e.Client.Temporal.GetWorkflowHistory(context.Background(), pipeline, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var first, last time.Time
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if first.IsZero() {
			first = ev.GetEventTime().AsTime()
		}
		last = ev.GetEventTime().AsTime()
	}
	return last.Sub(first)
}

func describeRuns(runs []activityRun, wall time.Duration) string {
	var parts []string
	for _, r := range runs {
		parts = append(parts, fmt.Sprintf("%s on worker %d %v", strings.TrimPrefix(r.name, "Terraform"), r.worker, r.took.Round(time.Millisecond)))
	}
	if wall > 0 {
		parts = append(parts, fmt.Sprintf("CLI wall %v", wall.Round(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}
