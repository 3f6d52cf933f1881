package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/capacity"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// cappedTF sleeps 4s in the real time provider on apply, so the applies overlap unless the budget holds them apart.
const cappedTF = `terraform {
  required_providers {
    time = { source = "hashicorp/time", version = "%s" }
  }
}
resource "time_sleep" "wait" {
  create_duration = "4s"
  triggers        = { greeting = {{ quote .Params.greeting }} }
}
`

// A budget of 2: four instances deploying at once never run more than two terraform applies at
// a time (counted from the live processes), the others say they wait for the budget, and all end Deployed.
func TestCapacityBudgetBoundsConcurrentApplies(t *testing.T) {
	e := cappedEnv(t, "e2e-cloud", 2, "capped", fmt.Sprintf(cappedTF, tfmirror.TimeVersion))
	const n = 4
	for i := range n {
		e.MustCLI(0, "create", fmt.Sprintf("cap/i%d", i), "-f", writeFile(t, fmt.Sprintf("stack: capped\nparameters:\n  greeting: hi%d\n", i)), "--wait")
	}

	// Sample the live terraform applies while the four deploys run.
	stop := make(chan struct{})
	var (
		mu     sync.Mutex
		most   int
		waited string
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			mu.Lock()
			most = max(most, applyDirs(e.StateDir))
			mu.Unlock()
		}
	}()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.MustCLI(0, "deploy", fmt.Sprintf("cap/i%d", i), "--wait")
		}()
	}
	deployed := make(chan struct{})
	go func() { wg.Wait(); close(deployed) }()
	for waiting := true; waited == "" && waiting; {
		select {
		case <-deployed:
			waiting = false
		default:
		}
		for i := range n {
			for _, s := range e.Status(fmt.Sprintf("cap/i%d", i)).Operation.Steps {
				if strings.HasPrefix(s.Detail, "waiting for budget e2e-cloud") {
					waited = s.Detail
				}
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	wg.Wait()
	close(stop)
	<-done
	for i := range n {
		require.Equal(t, lifecycle.Deployed, e.Status(fmt.Sprintf("cap/i%d", i)).State)
	}
	require.LessOrEqual(t, most, 2, "at most two applies at once")
	require.Equal(t, 2, most, "the budget's two slots were used at once")
	require.Contains(t, waited, "waiting for budget e2e-cloud (2/2 in use, ")
	t.Logf("capacity: %d deploys on a budget of 2: at most %d applies at once; a queued one showed %q", n, most, waited)
}

// applyDirs counts the instance working directories under stateDir with a terraform apply running.
func applyDirs(stateDir string) int {
	dirs := map[string]bool{}
	entries, _ := os.ReadDir("/proc")
	for _, en := range entries {
		cwd, err := os.Readlink(filepath.Join("/proc", en.Name(), "cwd"))
		if err != nil || !strings.HasPrefix(cwd, stateDir+string(filepath.Separator)) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", en.Name(), "cmdline"))
		if args := strings.Split(string(cmd), "\x00"); len(args) > 1 && containsArg(args, "apply") {
			dirs[cwd] = true
		}
	}
	return len(dirs)
}

func containsArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}

// A budget of 1: the worker running a's apply, which holds the slot, is killed (SIGKILL) while b
// waits behind it. The pipeline, not the worker, holds the slot: a's apply is retried on the
// other worker once its heartbeat times out, b gets the slot when a's step ends, both end
// Deployed, and nothing holds or waits for the budget after. Meanwhile a release, an acquire and
// a grant sent without slipway's attestation are refused and move nothing.
func TestCapacitySlotOfAKilledWorkerComesBack(t *testing.T) {
	// The greeting is the apply's sleep: a's long enough for b and c to queue behind it on a busy
	// machine (their pipelines reach the budget a few seconds each after their deploy), b's and c's short.
	e := cappedEnv(t, "e2e-kill", 1, "capped", strings.Replace(fmt.Sprintf(cappedTF, tfmirror.TimeVersion), `"4s"`, "{{ quote .Params.greeting }}", 1),
		func(o *devenv.EnvOptions) { o.NoWorker = true })
	first := startWorkerProcess(t, e, "")
	for ref, sleep := range map[string]string{"kill/a": "40s", "kill/b": "1s", "kill/c": "1s"} {
		e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: capped\nparameters:\n  greeting: "+sleep+"\n"), "--wait")
	}
	e.MustCLI(0, "deploy", "kill/a")
	waitFor(t, "a's apply", func() bool {
		require.NoError(t, first.Exited(), proc.LogTail(first.LogPath))
		return applyDirs(e.StateDir) == 1
	})
	e.MustCLI(0, "deploy", "kill/b")
	waitFor(t, "b to wait for the slot", func() bool { return showsDetail(e, "kill/b", "waiting for budget e2e-kill (1/1 in use, 0 ahead)") })
	e.MustCLI(0, "deploy", "kill/c")
	waitFor(t, "c to wait behind b", func() bool { return showsDetail(e, "kill/c", "waiting for budget e2e-kill (1/1 in use, 1 ahead)") })
	require.Equal(t, 1, applyDirs(e.StateDir), "a still applies, b and c wait")

	second := worker.New(e.Client.Temporal, e.TaskQueue, worker.Options{Interceptors: e.Interceptors})
	require.NoError(t, workerapp.Register(second, e.Activities))
	require.NoError(t, second.Start())
	defer second.Stop()
	killed := time.Now()
	require.NoError(t, first.Kill())

	// While a's step waits for its heartbeat to time out, a Temporal client without slipway's key
	// (the real temporal CLI) tries to free a's slot, to take one, and to tell b it has one: each
	// is refused, and the budget still has a holding and b waiting.
	bin, budget := temporalBin(t), contract.CapacityWorkflowID("e2e-kill")
	pa, pb := e.Status("kill/a").Operation.Pipeline, e.Status("kill/b").Operation.Pipeline
	out, err := unattested(t, bin, "workflow", "signal", "--workflow-id", budget, "--name", contract.SignalCapacityRelease, "--input", `"`+pa+`"`)
	require.NoError(t, err, out)
	out, err = unattested(t, bin, "workflow", "update", "execute", "--workflow-id", budget, "--name", contract.UpdateCapacityAcquire,
		"--input", `{"budget":"e2e-kill","holder":{"workflowID":"mallory","runID":"x","priority":1}}`)
	require.Error(t, err, "a forged acquire must fail: %s", out)
	require.Contains(t, out, "Encoded failure (type: Unauthenticated")
	out, err = unattested(t, bin, "workflow", "signal", "--workflow-id", pb, "--name", contract.SignalCapacityGranted, "--input", `"e2e-kill"`)
	require.NoError(t, err, out)
	var events string
	require.Eventually(t, func() bool {
		events = e.MustCLI(0, "events", "kill/b").Stdout
		return strings.Contains(events, "signal "+contract.SignalCapacityGranted+" refused (sent to "+pb+")")
	}, 20*time.Second, 100*time.Millisecond, "events:\n%s", events)
	require.Equal(t, contract.CapacityPlace{InUse: 1, Slots: 1, Ahead: 2}, capacityUse(t, e, "e2e-kill"), "a holds, b and c wait")
	require.Zero(t, applyDirs(e.StateDir), "a's apply died with its worker; b's has not started")
	require.Less(t, time.Since(killed), 25*time.Second, "all of it before a's heartbeat timed out")

	// When a's retried step ends and b applies, c's status says it is next, without a step event of its own.
	waitFor(t, "c to be next", func() bool { return showsDetail(e, "kill/c", "waiting for budget e2e-kill (1/1 in use, 0 ahead)") })
	for _, ref := range []string{"kill/a", "kill/b", "kill/c"} {
		waitFor(t, ref+" Deployed", func() bool { return e.Status(ref).State == lifecycle.Deployed })
	}
	t.Logf("all deployed %s after the kill", time.Since(killed).Round(time.Second))
	require.Equal(t, 2, applyAttempts(t, e, e.Status("kill/a").Operation.Pipeline), "a's killed apply, then its retry on the other worker")

	require.Equal(t, contract.CapacityPlace{Slots: 1}, capacityUse(t, e, "e2e-kill"), "no slot held, nothing queued")
}

// showsDetail reports whether a step of ref's operation shows detail.
func showsDetail(e *testsuite.Env, ref, detail string) bool {
	for _, s := range e.Status(ref).Operation.Steps {
		if s.Detail == detail {
			return true
		}
	}
	return false
}

// capacityUse is the budget's semaphore's answer to the capacity query.
func capacityUse(t *testing.T, e *testsuite.Env, budget string) (use contract.CapacityPlace) {
	t.Helper()
	v, err := e.Client.Temporal.QueryWorkflow(context.Background(), contract.CapacityWorkflowID(budget), "", contract.QueryCapacity, "")
	require.NoError(t, err)
	require.NoError(t, v.Get(&use))
	return use
}

// cappedEnv is an Env whose worker has one capacity budget of slots, and stack, whose applies
// draw on it, running tf (the real time provider through the mirror).
func cappedEnv(t *testing.T, budget string, slots int, stack, tf string, opts ...func(*devenv.EnvOptions)) *testsuite.Env {
	t.Helper()
	useTimeMirror(t)
	budgets := filepath.Join(t.TempDir(), "capacity.yaml")
	require.NoError(t, os.WriteFile(budgets, []byte(fmt.Sprintf("budgets:\n  - {name: %s, slots: %d}\n", budget, slots)), 0o644))
	t.Setenv(capacity.Var, budgets)
	e := testsuite.NewEnv(t, opts...)
	testsuite.PushFiles(t, e.GitOpsRepo, "add the "+stack+" stack", map[string][]byte{
		"stacks/" + stack + "/schema.yaml":             []byte(brokenSchema + "capacity: {apply: " + budget + "}\n"),
		"stacks/" + stack + "/terraform/main.tf.tmpl":  []byte(tf),
		"stacks/" + stack + "/manifests/app.yaml.tmpl": []byte(brokenManifest),
	})
	return e
}
