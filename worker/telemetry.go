package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/health"
	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/metrics"
	"github.com/slipway-dev/slipway/internal/workerapp"
)

// envTelemetryAddr is where the worker serves /healthz, /readyz and /metrics; unset: nowhere.
// envFleetInterval is how often it counts the fleet gauges (default metrics.DefaultFleetInterval).
const (
	envTelemetryAddr = "SLIPWAY_TELEMETRY_ADDR"
	envFleetInterval = "SLIPWAY_METRICS_FLEET_INTERVAL"
)

// telemetry is the worker's probe and metrics listener. Without SLIPWAY_TELEMETRY_ADDR it is
// off and records nothing, so dev workers and tests pay nothing for it.
type telemetry struct {
	addr    string
	fleet   time.Duration
	metrics *metrics.Metrics
	health  *health.Checker
	polling atomic.Bool
	cancel  context.CancelFunc
	done    chan struct{}
	closers []func()
}

// newTelemetry checks SLIPWAY_TELEMETRY_ADDR before anything dials.
func newTelemetry() (*telemetry, error) {
	addr := os.Getenv(envTelemetryAddr)
	if addr == "" {
		return &telemetry{}, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, fmt.Errorf("%s: %q: %v", envTelemetryAddr, addr, err)
	}
	fleet := metrics.DefaultFleetInterval
	if v := os.Getenv(envFleetInterval); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Second {
			return nil, fmt.Errorf("%s: %q: want a Go duration of at least 1s, e.g. 30s", envFleetInterval, v)
		}
		fleet = d
	}
	m, err := metrics.New("slipway-worker")
	if err != nil {
		return nil, err
	}
	return &telemetry{addr: addr, fleet: fleet, metrics: m, health: health.New()}, nil
}

// clientOptions passes the SDK's metrics to the client when telemetry is on.
func (t *telemetry) clientOptions() []client.Option {
	if t.metrics == nil {
		return nil
	}
	return []client.Option{client.WithMetricsHandler(t.metrics.Temporal())}
}

// start listens and begins counting the fleet. Readiness: Temporal answers, the pollers run
// (between started and SetStopping) and the store answers.
func (t *telemetry) start(c *client.Client, cfg workerapp.Config, zl *zap.Logger) error {
	if t.metrics == nil {
		return nil
	}
	t.health.Add("temporal", health.Temporal(c.Temporal))
	t.health.Add("pollers", func(context.Context) error {
		if !t.polling.Load() {
			return errors.New("the workers are not polling")
		}
		return nil
	})
	switch {
	case cfg.StorePGConn != "":
		check, closeStore, err := health.PostgreSQL(cfg.StorePGConn)
		if err != nil {
			return fmt.Errorf("SLIPWAY_STORE_PG_CONN: %w", err)
		}
		t.closers = append(t.closers, closeStore)
		t.health.Add("store", check)
	case cfg.StateDir != "":
		t.health.Add("store", health.WritableDir(cfg.StateDir))
	}
	ln, err := net.Listen("tcp", t.addr)
	if err != nil {
		return fmt.Errorf("%s: %w", envTelemetryAddr, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.cancel, t.done = cancel, make(chan struct{})
	// Not ready from the signal on, before any grace: whatever the stop sequence does next.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	t.closers = append(t.closers, func() { signal.Stop(sig) })
	go func() {
		select {
		case <-sig:
			t.SetStopping()
		case <-ctx.Done():
		}
	}()
	go t.metrics.WatchFleet(ctx, c.Fleet, t.fleet)
	go func() {
		defer close(t.done)
		if err := httpserve.Serve(ctx, ln, t.metrics.Mux(t.health), httpserve.WithLogger(zl), httpserve.WithShutdownGrace(time.Second)); err != nil {
			zl.Warn("telemetry listener stopped", zap.Error(err))
		}
	}()
	zl.Info("telemetry: /healthz, /readyz and /metrics", zap.String("address", ln.Addr().String()))
	return nil
}

// polled marks the workers as polling (just before they start).
func (t *telemetry) polled() { t.polling.Store(true) }

// SetStopping turns /readyz false: the drain calls it as soon as the worker begins to stop.
func (t *telemetry) SetStopping() {
	if t.health != nil {
		t.health.SetStopping()
	}
}

// close stops the listener and the fleet counts.
func (t *telemetry) close() {
	if t.cancel == nil {
		return
	}
	t.cancel()
	<-t.done
	for _, c := range t.closers {
		c()
	}
	_ = t.metrics.Shutdown(context.Background())
}
