// Command bench prints slipway's performance table in one run, on one real Temporal dev server
// with the fast settings: the Temporal floor, each pipeline over instant adapters and its ratio to
// the floor, an update deploy on real git and terraform split by where the time goes, concurrent
// lifecycles at several sizes, what parked instances cost, and a rollout to a fleet. `make bench`
// runs it; the raw figures go to bench/results/ as JSON.
//
//	go run ./testsuite/bench [-cpu-profile DIR] [-rows floor,pipelines,update,provider,throughput,idle,cluster,rollout,metrics] [-metrics 1000] [-lifecycles 10,100,1000] [-idle 1000,10000] [-rollout 1000] [-rows preview,preview-real,release-rollout -preview 1000 -preview-real 50 -release-rollout 1000] [-rows idle,idle-timed] [-rows rollout-scale,drift-scale -rollout-scale 10000 -drift-scale 10000]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

var allRows = []string{"floor", "pipelines", "update", "provider", "throughput", "idle", "cluster", "rollout", "metrics"}

// extraRows run only when -rows names them: each takes minutes at its default size.
var extraRows = []string{"preview", "preview-real", "release-rollout", "idle-timed", "rollout-scale", "drift-scale"}

type options struct {
	rows       []string
	steps      int   // steps per floor workflow
	runs       int   // runs per floor and pipeline row, and update deploys
	lifecycles []int // sizes of the throughput rows
	idle       []int // sizes of the idle rows
	sticky     []int // sticky cache sizes the idle rows compare
	// clusterWorkers are the worker counts of the cluster rows
	clusterWorkers []int
	out            string
	// workerSticky is the sticky cache of the bench's main worker
	workerSticky int
	// compare is a git ref whose build also runs the pipeline and throughput rows
	compare string
	// thisFirst runs this build's pipeline and throughput rows before compare's
	thisFirst bool
	// rollout is the fleet size of the rollout row
	rollout int
	// metrics is the fleet size of the metrics row
	metrics int
	// preview and releaseRollout are the fleet sizes of the preview and release-rollout rows
	preview, releaseRollout int
	// cpuProfile is where the instant worker writes its CPU profile and gRPC call counts
	cpuProfile string
	// rolloutScale and driftScale are the parked fleet sizes of the rollout-scale and drift-scale rows
	rolloutScale, driftScale int
	// previewReal is the fleet size of the preview-real row (real git and terraform)
	previewReal int
}

func main() {
	var o options
	var role, address, taskQueue, profileDir, policyDir, rows, lifecycles, idle, sticky, clusterWorkers string
	var stickyCache int
	flag.StringVar(&role, "role", "bench", "bench, or worker (internal: the bench's worker process)")
	flag.StringVar(&address, "address", "", "worker role: the Temporal frontend")
	flag.StringVar(&taskQueue, "task-queue", "", "worker role: the task queue")
	flag.StringVar(&profileDir, "profile-dir", "", "worker role: where SIGUSR1 writes its memory figures and heap profile")
	flag.StringVar(&policyDir, "policy-dir", "", "worker role: the policy bundle its Authorize decides with (the idle-timed row's change windows)")
	flag.IntVar(&stickyCache, "sticky-cache", 0, "worker role: sticky workflow cache size (0: the SDK's)")
	var telemetry, cpuProfile string
	flag.StringVar(&cpuProfile, "cpu-profile", "", "a directory: the worker role writes its CPU profile (cpu-QUEUE.pprof) and its gRPC calls by method (rpcs-QUEUE.txt) there when it stops; the bench passes it to its instant worker")
	var fleet string
	var drifted int
	flag.StringVar(&fleet, "fleet", "", "worker role: TENANT/N, seed the forge with N instances' files (the scale rows' parked fleet)")
	flag.IntVar(&drifted, "fleet-drifted", 0, "worker role: report every Nth instance of -fleet OutOfSync (0: none)")
	flag.StringVar(&telemetry, "telemetry", "", "worker role: serve /metrics here and count the fleet every second (the metrics row)")
	flag.IntVar(&o.metrics, "metrics", 1000, "instances the metrics row parks before it measures the scrape and the fleet counts")
	flag.StringVar(&rows, "rows", strings.Join(allRows, ","), "rows to measure: "+strings.Join(allRows, ",")+", and (only when named) "+strings.Join(extraRows, ","))
	flag.IntVar(&o.preview, "preview", 1000, "instances on release 1.0.0 the preview row previews release 1.1.0 of")
	flag.IntVar(&o.previewReal, "preview-real", 50, "instances on release 1.0.0 the preview-real row previews release 1.1.0 of, on real git and terraform")
	flag.IntVar(&o.releaseRollout, "release-rollout", 1000, "instances on release 1.0.0 the release-rollout row rolls out to release 1.1.0, a canary of 10 then batches of 10%")
	flag.IntVar(&o.rolloutScale, "rollout-scale", 10000, "instances the rollout-scale row parks (no lifecycle each) and rolls replicas=2 out to, in batches of 10%")
	flag.IntVar(&o.driftScale, "drift-scale", 10000, "instances the drift-scale row parks (1% reported drifted) and sweeps for drift once, remediating by deploy")
	flag.IntVar(&o.steps, "steps", 20, "activity steps per floor workflow")
	flag.IntVar(&o.runs, "runs", 10, "runs per floor and pipeline row, and update deploys on real terraform")
	flag.StringVar(&lifecycles, "lifecycles", "10,100,1000", "concurrent provision+deploy lifecycles, one row each")
	flag.StringVar(&idle, "idle", "1000,10000", "parked instances, one row each")
	flag.StringVar(&sticky, "sticky", "10000,2000", "sticky cache sizes the idle rows compare (the SDK default is 10000)")
	flag.StringVar(&clusterWorkers, "cluster-workers", "1,3", "worker processes of the cluster rows, which run the largest -lifecycles size")
	flag.IntVar(&o.workerSticky, "worker-sticky", workerapp.DefaultStickyCache, "sticky cache of the worker the floor, pipeline and throughput rows run on (slipway's default)")
	flag.StringVar(&o.compare, "compare", "", "a git ref (e8747d1 or later) whose build also runs the pipeline and throughput rows, for before/after rows in one run")
	flag.BoolVar(&o.thisFirst, "compare-this-first", false, "run this build's rows before -compare's (the row run second reads more server CPU: run both orders)")
	flag.IntVar(&o.rollout, "rollout", 1000, "instances the rollout row provisions, deploys and rolls replicas=2 out to, in batches of 10%")
	flag.StringVar(&o.out, "out", "bench/results", "directory for the raw figures (JSON)")
	flag.Parse()
	o.cpuProfile = cpuProfile
	var err error
	if role == "worker" {
		err = runWorker(address, taskQueue, profileDir, policyDir, stickyCache, telemetry, cpuProfile, fleet, drifted)
	} else if role != "bench" {
		err = fmt.Errorf("-role: %q is not bench or worker", role)
	} else if err = o.parse(rows, lifecycles, idle, sticky, clusterWorkers); err == nil {
		if err = shareAttestKey(); err == nil {
			err = run(context.Background(), o)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		var flagErr *flagError
		if errors.As(err, &flagErr) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type flagError struct{ flag, value, reason string }

func (e *flagError) Error() string { return fmt.Sprintf("-%s %q: %s", e.flag, e.value, e.reason) }

func (o *options) parse(rows, lifecycles, idle, sticky, clusterWorkers string) error {
	for _, r := range strings.Split(rows, ",") {
		if !slices.Contains(allRows, r) && !slices.Contains(extraRows, r) {
			return &flagError{"rows", r, "not one of " + strings.Join(append(slices.Clone(allRows), extraRows...), ",")}
		}
		o.rows = append(o.rows, r)
	}
	var err error
	if o.lifecycles, err = sizes("lifecycles", lifecycles); err != nil {
		return err
	}
	if o.idle, err = sizes("idle", idle); err != nil {
		return err
	}
	if o.sticky, err = sizes("sticky", sticky); err != nil {
		return err
	}
	if o.clusterWorkers, err = sizes("cluster-workers", clusterWorkers); err != nil {
		return err
	}
	if o.workerSticky < 1 {
		return &flagError{"worker-sticky", fmt.Sprint(o.workerSticky), "must be at least 1"}
	}
	if o.metrics < 1 {
		return &flagError{"metrics", fmt.Sprint(o.metrics), "must be at least 1"}
	}
	if o.want("preview") && o.preview < 1 {
		return &flagError{"preview", fmt.Sprint(o.preview), "must be at least 1"}
	}
	if o.want("preview-real") && o.previewReal < 1 {
		return &flagError{"preview-real", fmt.Sprint(o.previewReal), "must be at least 1"}
	}
	if o.want("release-rollout") && o.releaseRollout < 1 {
		return &flagError{"release-rollout", fmt.Sprint(o.releaseRollout), "must be at least 1"}
	}
	if o.want("rollout-scale") && o.rolloutScale < 1 {
		return &flagError{"rollout-scale", fmt.Sprint(o.rolloutScale), "must be at least 1"}
	}
	if o.want("drift-scale") && o.driftScale < 1 {
		return &flagError{"drift-scale", fmt.Sprint(o.driftScale), "must be at least 1"}
	}
	if o.rollout < 1 {
		return &flagError{"rollout", fmt.Sprint(o.rollout), "must be at least 1"}
	}
	if o.steps < 1 || o.runs < 1 {
		return &flagError{"steps/-runs", fmt.Sprint(o.steps, o.runs), "must be at least 1"}
	}
	return nil
}

func sizes(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, &flagError{name, f, "want positive whole numbers separated by commas"}
		}
		out = append(out, n)
	}
	return out, nil
}

func (o options) want(row string) bool { return slices.Contains(o.rows, row) }

func dialSDK(opts sdkclient.Options) (sdkclient.Client, error) {
	c, err := sdkclient.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s: %w", opts.HostPort, err)
	}
	return c, nil
}

func header() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("slipway bench %s on %s: nproc %d, GOMAXPROCS %d, %s, Temporal dev server (fast settings, SQLite)",
		time.Now().UTC().Format(time.RFC3339), host, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version())
}

// shareAttestKey makes one attestation key for the run (unless one is set), which every worker
// process the bench starts inherits with its environment.
func shareAttestKey() error {
	if os.Getenv(attest.EnvKey) != "" || os.Getenv(attest.EnvKeyFile) != "" {
		return nil
	}
	key, err := attest.Generate()
	if err != nil {
		return err
	}
	return os.Setenv(attest.EnvKey, key)
}
