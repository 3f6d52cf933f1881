// Command slipway-worker runs slipway's workflows and activities. Temporal
// connection settings come from TEMPORAL_* variables (envconfig); slipway's from SLIPWAY_*,
// including the payload key (SLIPWAY_CODEC_KEY or SLIPWAY_CODEC_KEY_FILE) and the attestation key
// (SLIPWAY_ATTEST_KEY or SLIPWAY_ATTEST_KEY_FILE), without which it will not start.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/cleanenv"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/tracing"
	"github.com/slipway-dev/slipway/internal/version"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "version") {
		fmt.Println("slipway-worker", version.Get()) // before anything is read or dialled
		return
	}
	// The keys in the environment stay out of /proc/<pid>/environ: the process starts again
	// with them handed over on a pipe (internal/cleanenv).
	if err := cleanenv.Reexec(); err != nil {
		fmt.Fprintln(os.Stderr, "slipway-worker: refusing to start:", err)
		os.Exit(1)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "slipway-worker:", err)
		os.Exit(1)
	}
}

func run() error {
	zl, err := logging.New(logging.LevelFromEnv("info"))
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	defer func() { _ = zl.Sync() }()
	cfg := workerapp.FromEnv()
	stop, err := cfg.StopSettings()
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	// Off unless OTEL_* asks for an exporter; spans still buffered are flushed on the way out.
	shutdownTracing, tracingOn, err := tracing.Setup(context.Background(), "slipway-worker")
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	defer flushTraces(zl, shutdownTracing)
	cfg.Tracing = tracingOn
	if tracingOn {
		zl.Info("tracing on: spans exported as OTEL_* says", zap.String("exporter", os.Getenv(tracing.EnvExporter)),
			zap.String("endpoint", os.Getenv(tracing.EnvEndpoint)))
	}
	var tracingOpts []client.Option
	if tracingOn {
		tracingOpts = append(tracingOpts, client.WithInterceptors(tracing.ClientInterceptor()))
	}
	// One line says how exec hooks are confined on this host, or that they are refused.
	sandbox, err := hooks.SandboxFromEnv(context.Background(), os.Getenv)
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	zl.Info(sandbox.String(), zap.String("sandbox", sandbox.Mode))
	cfg.HookSandbox = &sandbox
	// And one how terraform is: anything but bubblewrap is said loudly (each step says it again).
	tfSandbox, err := workerapp.TerraformSandboxFromEnv(context.Background(), os.Getenv, false)
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	if tfSandbox.Secure() {
		zl.Info(tfSandbox.String(), zap.String("terraformSandbox", tfSandbox.Mode))
	} else {
		zl.Error(tfSandbox.String(), zap.String("terraformSandbox", tfSandbox.Mode))
	}
	cfg.TerraformSandbox = &tfSandbox
	if cfg.StorePGConn != "" {
		zl.Info("plans and secrets in the shared PostgreSQL store; this host's state dir is a cache", zap.String("stateDir", cfg.StateDir))
	} else {
		zl.Warn("plans and secrets on this host's disk: run one worker only, or set SLIPWAY_STORE_PG_CONN (or SLIPWAY_TF_PG_CONN)", zap.String("stateDir", cfg.StateDir))
	}
	// A worker without the attestation key would run anyone's requests.
	if cfg.Attest, err = attest.Load(); err != nil {
		return fmt.Errorf("refusing to start: the worker verifies every request with the attestation key: %w", err)
	}
	tel, err := newTelemetry()
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	// Options refuses to go on without a payload key: a worker never writes plaintext history.
	opts, err := client.Options(append(append(tracingOpts, tel.clientOptions()...), client.WithLogger(logging.NewTemporal(zl)),
		client.WithIdentity(identity.Actor{Kind: identity.Service, Issuer: "slipway", Name: "worker", Via: "worker"}))...)
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	cfg.Payloads = opts.DataConverter
	c, err := dial(opts)
	if err != nil {
		return err
	}
	zl.Info("Temporal credential: "+client.DescribeCredential(os.Getenv), zap.String("address", opts.HostPort))
	defer c.Close()
	// A workflow upserting a search attribute the namespace lacks fails its task, so a worker that
	// brings new ones registers them; without operator rights it says what to run instead.
	ns := opts.Namespace
	if ns == "" {
		ns = "default"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = client.New(c, cfg.TaskQueue, ns).EnsureSearchAttributes(ctx)
	cancel()
	var wrongType *client.SearchAttributeTypeError
	switch {
	case errors.As(err, &wrongType):
		// Every upsert of it would fail the workflow task: no create could ever finish.
		return fmt.Errorf("refusing to start: %w", err)
	case err != nil:
		zl.Warn("search attributes not registered: ask an operator to run deploy/temporal/search-attributes.sh "+
			"(it registers contract.SearchAttributes with their types)", zap.String("namespace", ns), zap.Error(err))
	}
	w, err := workerapp.NewWorker(c, cfg)
	if err != nil {
		return err
	}
	if err := tel.start(client.New(c, cfg.TaskQueue, ns), cfg, zl); err != nil {
		return err
	}
	defer tel.close()
	tel.polled()
	// Not ready once a stop begins: on SIGTERM/SIGINT (telemetry watches them) or any other way out.
	defer tel.SetStopping()
	// SIGTERM or SIGINT: polling stops, running steps get SLIPWAY_WORKER_GRACE (internal/workerapp/drain.go).
	stop.Log, stop.OnStopping = zl, tel.SetStopping
	return w.RunUntil(worker.InterruptCh(), stop)
}

// flushTraces exports the spans still buffered, within a bound: an unreachable collector must not hold the exit.
func flushTraces(zl *zap.Logger, shutdown func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		zl.Warn("traces not flushed", zap.Error(err))
	}
}

func dial(opts sdkclient.Options) (sdkclient.Client, error) {
	c, err := sdkclient.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s (TEMPORAL_ADDRESS): %w", opts.HostPort, err)
	}
	return c, nil
}
