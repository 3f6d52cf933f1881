package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/health"
	"github.com/slipway-dev/slipway/internal/metrics"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite/instant"
)

// The floor: a bare workflow of N steps, each a no-op regular or local activity.
const (
	floorRegular = "bench-floor-regular"
	floorLocal   = "bench-floor-local"
	noop         = "bench-noop"
)

func floorWorkflow(local bool) func(workflow.Context, int) error {
	return func(ctx workflow.Context, n int) error {
		ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
		ctx = workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{StartToCloseTimeout: time.Minute})
		for i := 0; i < n; i++ {
			f := workflow.ExecuteActivity(ctx, noop)
			if local {
				f = workflow.ExecuteLocalActivity(ctx, noop)
			}
			if err := f.Get(ctx, nil); err != nil {
				return err
			}
		}
		return nil
	}
}

// runWorker is the bench's worker process (-role worker): slipway's workflows over instant
// adapters plus the floor, with the sticky cache the parent chose, until SIGTERM.
//
// fleet (TENANT/N) seeds the forge with the instance files of instant.FleetRef(TENANT, 0…N-1),
// and its deployer reports every drifted-th of them OutOfSync (0: none).
func runWorker(address, taskQueue, profileDir, policyDir string, sticky int, telemetry, cpuProfile, fleet string, drifted int) error {
	if profileDir != "" {
		serveMemStats(filepath.Join(profileDir, "mem-"+taskQueue))
	}
	if sticky > 0 {
		workerapp.SizeCache(sticky) // as slipway-worker sizes it
	}
	copts := []client.Option{client.WithHostPort(address)}
	var m *metrics.Metrics
	if telemetry != "" {
		var err error
		if m, err = metrics.New("slipway-worker"); err != nil {
			return err
		}
		copts = append(copts, client.WithMetricsHandler(m.Temporal()))
	}
	opts, err := client.Options(copts...)
	if err != nil {
		return err
	}
	if cpuProfile != "" {
		dial, stop, err := profileWorker(cpuProfile, taskQueue)
		if err != nil {
			return err
		}
		defer stop()
		opts.ConnectionOptions.DialOptions = append(opts.ConnectionOptions.DialOptions, dial)
	}
	c, err := dialSDK(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	if m != nil {
		ln, err := net.Listen("tcp", telemetry)
		if err != nil {
			return err
		}
		defer ln.Close()
		// As slipway-worker's telemetry, counting every second so the row sees many refreshes.
		go func() { _ = http.Serve(ln, m.Mux(health.New())) }()
		go m.WatchFleet(context.Background(), client.New(c, taskQueue, opts.Namespace).Fleet, time.Second)
	}
	seed, err := fleetSeed(fleet)
	if err != nil {
		return err
	}
	acts, err := instant.NewWith(seed)
	if err != nil {
		return err
	}
	if tenant, n, ok := fleetOf(fleet); ok && drifted > 0 {
		for i := 0; i < n; i += drifted {
			acts.Deployer.(*instant.Deployer).Set(instant.FleetRef(tenant, i), instant.OutOfSync(instant.FleetRef(tenant, i)))
		}
	}
	if policyDir != "" {
		if acts.Policy, err = policy.Load(policyDir); err != nil {
			return err
		}
	}
	workerapp.Attach(acts, c, taskQueue)
	verify, err := workerapp.Interceptors(workerapp.Config{Payloads: opts.DataConverter})
	if err != nil {
		return err
	}
	w := worker.New(c, taskQueue, worker.Options{Interceptors: verify})
	if err := workerapp.Register(w, acts); err != nil {
		return err
	}
	w.RegisterWorkflowWithOptions(floorWorkflow(false), workflow.RegisterOptions{Name: floorRegular})
	w.RegisterWorkflowWithOptions(floorWorkflow(true), workflow.RegisterOptions{Name: floorLocal})
	w.RegisterActivityWithOptions(func(context.Context) error { return nil }, activity.RegisterOptions{Name: noop})
	return w.Run(worker.InterruptCh())
}

// workerProc is a running bench worker process, whose CPU time and memory the parent reads
// from /proc.
type workerProc struct {
	cmd       *exec.Cmd
	log       *os.File
	taskQueue string
	exited    chan struct{} // closed when the process has exited, for whatever reason
}

// startWorker runs this bench binary as a worker process; startWorkerFrom runs another build's.
func startWorker(dir, address, keyFile, taskQueue string, sticky int, extra ...string) (*workerProc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	// Only this build's worker knows -profile-dir: an older one (-compare) would refuse it.
	return startWorkerFrom(self, dir, address, keyFile, taskQueue, sticky, append([]string{"-profile-dir", dir}, extra...)...)
}

func startWorkerFrom(bin, dir, address, keyFile, taskQueue string, sticky int, extra ...string) (*workerProc, error) {
	args := append([]string{"-role", "worker", "-address", address, "-task-queue", taskQueue,
		"-sticky-cache", strconv.Itoa(sticky)}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SLIPWAY_CODEC_KEY=", "SLIPWAY_CODEC_KEY_FILE="+keyFile)
	log, err := os.Create(filepath.Join(dir, "worker-"+taskQueue+".log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the bench
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &workerProc{cmd: cmd, log: log, taskQueue: taskQueue, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// watch cancels ctx when the worker exits before stop: a row waiting on a dead worker's queue
// would otherwise wait forever.
func (p *workerProc) watch(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		select {
		case <-p.exited:
			err := fmt.Errorf("the worker of %s exited (%s); its log ends:\n%s", p.taskQueue, p.cmd.ProcessState, p.logTail())
			fmt.Fprintf(os.Stderr, "bench: %v\n", err) // the rows' errors say only that they were cancelled
			cancel(err)
		case <-ctx.Done():
		}
	}()
	return ctx, func() { cancel(nil) }
}

// logTail is the last 2 KiB of the worker's log: the bench's directory goes when it exits.
func (p *workerProc) logTail() string {
	b, _ := os.ReadFile(p.log.Name())
	return string(b[max(0, len(b)-2048):])
}

func (p *workerProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	_ = p.log.Close()
}

func (p *workerProc) pid() int                 { return p.cmd.Process.Pid }
func (p *workerProc) cpu() time.Duration       { return procCPU(p.pid()) }
func (p *workerProc) rss() (now, peak float64) { return procRSS(p.pid()) }

// resetPeak starts a new VmHWM window (Linux: clear_refs 5), so a row reports its own peak.
func (p *workerProc) resetPeak() {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", p.pid()), []byte("5"), 0)
}

// procCPU is a process's user+system CPU time so far.
func procCPU(pid int) time.Duration {
	f := statFields(pid)
	if f == nil {
		return 0
	}
	return time.Duration(ticks(f, 11)+ticks(f, 12)) * time.Second / 100 // USER_HZ is 100 on Linux
}

// procTreeCPU is the CPU time of a process, its reaped children and its live children: a
// PostgreSQL postmaster and its backends.
func procTreeCPU(pid int) time.Duration {
	own := statFields(pid)
	if own == nil {
		return 0
	}
	total := ticks(own, 11) + ticks(own, 12) + ticks(own, 13) + ticks(own, 14)
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		child, err := strconv.Atoi(filepath.Base(d))
		if err != nil || child == pid {
			continue
		}
		if f := statFields(child); f != nil && f[1] == strconv.Itoa(pid) {
			total += ticks(f, 11) + ticks(f, 12)
		}
	}
	return time.Duration(total) * time.Second / 100
}

// statFields are /proc/PID/stat's fields after the command name (state is [0], ppid [1]).
func statFields(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
}

func ticks(f []string, i int) int64 {
	n, _ := strconv.ParseInt(f[i], 10, 64)
	return n
}

// procRSS reads VmRSS (now) and VmHWM (peak since start or resetPeak), in MiB.
func procRSS(pid int) (now, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
		switch k {
		case "VmRSS":
			now = kb / 1024
		case "VmHWM":
			peak = kb / 1024
		}
	}
	return now, peak
}

// fleetOf splits a -fleet value, TENANT/N.
func fleetOf(fleet string) (tenant string, n int, ok bool) {
	tenant, count, ok := strings.Cut(fleet, "/")
	n, err := strconv.Atoi(count)
	return tenant, n, ok && err == nil && n > 0
}

// fleetSeed is the forge's seed of a -fleet value: nil for none.
func fleetSeed(fleet string) (map[string][]byte, error) {
	if fleet == "" {
		return nil, nil
	}
	tenant, n, ok := fleetOf(fleet)
	if !ok {
		return nil, &flagError{"fleet", fleet, "want TENANT/N"}
	}
	return instant.FleetFiles(tenant, n)
}
