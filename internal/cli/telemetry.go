package cli

import (
	"context"
	"net/http"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/health"
	"github.com/slipway-dev/slipway/internal/metrics"
)

// serverTelemetry is a server's /healthz, /readyz and /metrics, served on its own listener
// ahead of its Host check, auth and body limits: the kubelet and Prometheus reach it by pod IP.
type serverTelemetry struct {
	metrics *metrics.Metrics
	health  *health.Checker
}

func newServerTelemetry(service string) (*serverTelemetry, error) {
	m, err := metrics.New(service)
	if err != nil {
		return nil, err
	}
	return &serverTelemetry{metrics: m, health: health.New()}, nil
}

// clientOption records the SDK's metrics of the server's Temporal client.
func (t *serverTelemetry) clientOption() client.Option {
	return client.WithMetricsHandler(t.metrics.Temporal())
}

// front serves the telemetry paths, and h for the rest; readiness fails once ctx ends (the
// server is draining).
func (t *serverTelemetry) front(ctx context.Context, h http.Handler) http.Handler {
	context.AfterFunc(ctx, t.health.SetStopping)
	return metrics.Front(t.metrics.Mux(t.health), h)
}
