package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/activity"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/proc"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite/tfmirror"
)

// The driver re-runs its own binary as a worker; these variables configure it.
const (
	envRole    = "SLIPWAY_CHAOS_ROLE"
	roleWorker = "worker"
	envKill    = "SLIPWAY_CHAOS_KILL"   // op:activity:phase to SIGKILL at, once
	envFaults  = "SLIPWAY_CHAOS_FAULTS" // share of client calls that fail
	envSeed    = "SLIPWAY_CHAOS_SEED"
	envGitHang = "SLIPWAY_CHAOS_GIT_HANG" // the file the repo's hook touches once inside git (phase git)
	killMarker = "CHAOS-KILL"
	missMarker = "CHAOS-MISSED"
)

// midDelay is how far into a long activity a "mid" kill lands: the chaos stack's applies
// and destroys sleep for 2 s, and ArgoCD takes about 1.6 s to bring the app to Healthy
// and 6 s to remove it, so these land inside the work.
func midDelay(activity string) time.Duration {
	if activity == contract.ActDeployApp {
		return 400 * time.Millisecond
	}
	return 1200 * time.Millisecond
}

// workerMain is a real slipway worker (app.NewActivities, app.Register) whose clients
// may fail transiently and which may SIGKILL itself at one kill point.
func workerMain() int {
	if err := runWorker(); err != nil {
		fmt.Fprintln(os.Stderr, "chaos worker:", err)
		return 1
	}
	return 0
}

func runWorker() error {
	zl, err := logging.New("info")
	if err != nil {
		return err
	}
	cfg := workerapp.FromEnv()
	acts, err := workerapp.NewActivities(cfg)
	if err != nil {
		return err
	}
	ci := &chaosInterceptor{}
	if v := os.Getenv(envKill); v != "" {
		k, err := parseKillPoint(v)
		if err != nil {
			return err
		}
		ci.kill = &k
	}
	if v := os.Getenv(envFaults); v != "" {
		rate, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%s=%q: %w", envFaults, v, err)
		}
		seed, _ := strconv.ParseInt(os.Getenv(envSeed), 10, 64)
		ci.in = newInjector(rate, seed)
		acts.Forge = faultyForge{Forge: acts.Forge, in: ci.in}
		acts.Deployer = faultyDeployer{Deployer: acts.Deployer, in: ci.in}
	}
	opts, err := client.Options(client.WithLogger(logging.NewTemporal(zl)))
	if err != nil {
		return err
	}
	c, err := sdkclient.Dial(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	workerapp.Attach(acts, c, cfg.TaskQueue)
	cfg.Payloads = opts.DataConverter
	verify, err := workerapp.Interceptors(cfg)
	if err != nil {
		return err
	}
	w := worker.New(c, cfg.TaskQueue, worker.Options{Interceptors: append(verify, ci)})
	if err := workerapp.Register(w, acts); err != nil {
		return err
	}
	return w.Run(worker.InterruptCh())
}

// chaosInterceptor injects terraform faults at the activity boundary (the runner is
// not an interface) and fires the kill point.
type chaosInterceptor struct {
	interceptor.WorkerInterceptorBase
	kill *KillPoint
	in   *injector
}

func (c *chaosInterceptor) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &activityInterceptor{root: c}
	a.Next = next
	return a
}

type activityInterceptor struct {
	interceptor.ActivityInboundInterceptorBase
	root *chaosInterceptor
}

func (a *activityInterceptor) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	info := activity.GetInfo(ctx)
	name := info.ActivityType.Name
	k := a.root.kill
	hit := k != nil && k.Activity == name && k.Op == opSeq(info.WorkflowExecution.ID)
	if hit && k.Phase == phaseBefore {
		die(*k)
	}
	if hit && k.Phase == phaseMid {
		timer := time.AfterFunc(midDelay(name), func() { die(*k) })
		defer func() {
			if timer.Stop() { // the activity ended first: the point was not hit mid-way
				fmt.Fprintf(os.Stderr, "%s\t%s\n", missMarker, k)
				die(*k)
			}
		}()
	}
	if hit && k.Phase == phaseGit {
		// Arm the hook for this activity; die as soon as git waits in it holding main.lock.
		hang := os.Getenv(envGitHang)
		_ = os.WriteFile(hang+".armed", nil, 0o644)
		defer dieWhen(*k, func() bool { _, err := os.Stat(hang); return err == nil })()
	}
	if hit && k.needsProvider() {
		defer dieWhen(*k, insideInit(k.Phase, info.WorkflowExecution.ID))()
	}
	var res any
	var err error
	run := func() error { res, err = a.Next.ExecuteActivity(ctx, in); return err }
	if strings.HasPrefix(name, "Terraform") {
		err = a.root.in.call("terraform."+name, run)
	} else {
		err = run()
	}
	if hit && k.Phase == phaseAfter && err == nil {
		die(*k)
	}
	return res, err
}

// dieWhen kills the worker as soon as inside says the activity is at k; the func it returns,
// deferred by the activity, kills it anyway (logging that k was missed) when it ended first.
func dieWhen(k KillPoint, inside func() bool) (ended func()) {
	var mu sync.Mutex
	done, dying := false, false
	go func() {
		for at := false; !at; {
			time.Sleep(time.Millisecond)
			at = inside()
			mu.Lock()
			if done {
				mu.Unlock()
				return
			}
			dying = at
			mu.Unlock()
		}
		die(k)
	}()
	return func() {
		mu.Lock()
		done = true
		d := dying
		mu.Unlock()
		if d {
			select {} // the step failed as its git or terraform was killed: the worker follows
		}
		fmt.Fprintf(os.Stderr, "%s\t%s\n", missMarker, k)
		die(k)
	}
}

// insideInit says whether the init of the workflow's instance is at the point: phaseCache,
// the provider is in the plugin cache but not whole; phaseLockFile, terraform's lock file (or
// its temporary file) is in the working directory.
func insideInit(phase, workflowID string) func() bool {
	stateDir := os.Getenv("SLIPWAY_STATE_DIR")
	cache := os.Getenv(terraform.EnvPluginCache)
	if cache == "" {
		cache = filepath.Join(stateDir, "plugin-cache")
	}
	if phase == phaseLockFile {
		parts := strings.Split(workflowID, "/") // instance/T/N/...
		pattern := filepath.Join(stateDir, "work", parts[1], parts[2], terraform.LockFile+"*")
		return func() bool {
			if m, _ := filepath.Glob(pattern); len(m) == 0 {
				return false
			}
			if _, err := os.Stat(filepath.Join(cache, terraform.CacheBusyFile)); err != nil {
				// Seen late on a loaded machine: the init had ended and let the cache go.
				fmt.Fprintln(os.Stderr, cacheReleased)
			}
			return true
		}
	}
	p := tfmirror.Time()
	whole, err := os.Stat(p.Binary)
	pattern := filepath.Join(cache, "*", p.Source, p.Version, "linux_amd64", "terraform-provider-time_v"+p.Version)
	return func() bool {
		m, _ := filepath.Glob(pattern)
		for _, f := range m {
			if st, serr := os.Stat(f); serr == nil && err == nil && st.Size() < whole.Size() {
				return true
			}
		}
		return false
	}
}

// die is a crash of the worker's container: every process under the worker stops at once
// (terraform and its provisioners included, which sit in process groups of their own), then
// all are SIGKILLed, the worker last.
func die(k KillPoint) {
	fmt.Fprintf(os.Stderr, "%s\t%s\n", killMarker, k)
	for i := 0; i < 3; i++ { // stop first, so nothing forks past the kill
		for _, pid := range proc.Descendants(os.Getpid()) {
			_ = syscall.Kill(pid, syscall.SIGSTOP)
		}
	}
	for _, pid := range proc.Descendants(os.Getpid()) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(0, syscall.SIGKILL)
	select {}
}

// opSeq is the operation's sequence number from its pipeline's workflow ID
// (instance/T/N/<op>-<seq>-<epoch>/attempt-<n>); 0 for the entity's own activities.
func opSeq(workflowID string) int {
	parts := strings.Split(workflowID, "/")
	if len(parts) != 5 {
		return 0
	}
	fields := strings.SplitN(parts[3], "-", 3)
	if len(fields) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(fields[1])
	return n
}
