// Package metrics exposes slipway's and the Temporal SDK's metrics for Prometheus: an
// OpenTelemetry MeterProvider whose Prometheus exporter writes to a registry of its own, so
// nothing a library registers globally leaks into /metrics.
package metrics

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"

	"github.com/slipway-dev/slipway/internal/health"
	"github.com/slipway-dev/slipway/internal/version"
)

// Names of slipway's own metrics as Prometheus exposes them; the dashboard and the alerts use
// these (a test checks them against what a registry exposes).
const (
	// Emitted by the workflows through the SDK's replay-aware handler (see workflows/metrics.go).
	OperationsStarted  = "slipway_operations_started"  // counter {kind, stack}
	OperationsFinished = "slipway_operations_finished" // counter {kind, stack, outcome=succeeded|failed}
	StepDuration       = "slipway_step_duration"       // histogram, seconds {op, step, outcome}
	// Emitted by this package.
	BuildInfo          = "slipway_build_info"                // gauge 1 {service, version, commit, go_version}
	WebhookDeliveries  = "slipway_webhook_deliveries"        // counter {forge, outcome}
	Instances          = "slipway_instances"                 // gauge {state}
	InstancesReady     = "slipway_instances_ready"           // gauge {ready=True|False|Unknown}
	ApprovalsWaiting   = "slipway_approvals_waiting"         // gauge
	StepsRetrying      = "slipway_steps_retrying"            // gauge: instances whose running step is Retrying
	StackReleases      = "slipway_stack_release_instances"   // gauge {stack, release, ready}: the skew
	ObserverSweepAge   = "slipway_observer_sweep_age"        // gauge, seconds
	FleetRefreshErrors = "slipway_fleet_refresh_errors"      // counter
	FleetRefreshed     = "slipway_fleet_refreshed_timestamp" // gauge, unix seconds of the last good refresh
	Ready              = "slipway_ready"                     // gauge 1/0: /readyz's answer at scrape time
)

// ExportedNames are the metric families slipway itself exposes, as Prometheus names them.
var ExportedNames = []string{
	OperationsStarted + "_total", OperationsFinished + "_total", StepDuration + "_seconds",
	BuildInfo, WebhookDeliveries + "_total", Instances, InstancesReady, ApprovalsWaiting, StepsRetrying, StackReleases,
	ObserverSweepAge + "_seconds", FleetRefreshErrors + "_total", FleetRefreshed, Ready,
}

// durationBuckets suit both a 5 ms SDK poll and an hour-long terraform apply; OTel's default
// buckets (0..10000) are meant for milliseconds.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600}

// Metrics is one process's metrics: its registry, meter and slipway's instruments.
type Metrics struct {
	service  string
	reg      *prometheus.Registry
	provider *sdkmetric.MeterProvider
	meter    metric.Meter
	temporal client.MetricsHandler

	deliveries    metric.Int64Counter
	refreshErrors metric.Int64Counter

	mu    sync.Mutex
	fleet *FleetCounts // nil until a fleet watch has counted once

	readyOnce sync.Once
}

// New builds the registry, the Prometheus exporter and the MeterProvider for service
// (slipway-worker, slipway-server, ...), and registers slipway's instruments.
func New(service string) (*Metrics, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, fmt.Errorf("metrics: prometheus exporter: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", service))
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res),
		sdkmetric.WithView(sdkmetric.NewView(sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram, Unit: "s"},
			sdkmetric.Stream{Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: durationBuckets}})))
	m := &Metrics{service: service, reg: reg, provider: provider, meter: provider.Meter("github.com/slipway-dev/slipway")}
	m.temporal = temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
		Meter:                provider.Meter("temporal-sdk-go"),
		UseMonotonicCounters: true,
		// A metric the SDK cannot record is no reason to fail a workflow task.
		OnError: func(error) {},
	})
	if err := m.instruments(); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Metrics) instruments() error {
	var err error
	if m.deliveries, err = m.meter.Int64Counter(WebhookDeliveries, metric.WithDescription("webhook deliveries by forge and outcome")); err != nil {
		return err
	}
	if m.refreshErrors, err = m.meter.Int64Counter(FleetRefreshErrors, metric.WithDescription("visibility counts that failed; the fleet gauges keep their last values")); err != nil {
		return err
	}
	v := version.Get()
	build := metric.WithAttributes(attribute.String("service", m.service), attribute.String("version", v.Version),
		attribute.String("commit", v.Commit), attribute.String("go_version", v.GoVersion))
	if _, err = m.meter.Int64ObservableGauge(BuildInfo, metric.WithDescription("1, labelled with the build"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error { o.Observe(1, build); return nil })); err != nil {
		return err
	}
	instances, err := m.meter.Int64ObservableGauge(Instances, metric.WithDescription("instances by lifecycle state (visibility count; every worker reports the same: use max())"))
	if err != nil {
		return err
	}
	ready, err := m.meter.Int64ObservableGauge(InstancesReady, metric.WithDescription("running instances by Ready (visibility count; use max())"))
	if err != nil {
		return err
	}
	approvals, err := m.meter.Int64ObservableGauge(ApprovalsWaiting, metric.WithDescription("instances whose operation waits for an approval (use max())"))
	if err != nil {
		return err
	}
	retrying, err := m.meter.Int64ObservableGauge(StepsRetrying, metric.WithDescription("instances whose running step keeps failing and is retried, Retrying (use max())"))
	if err != nil {
		return err
	}
	releases, err := m.meter.Int64ObservableGauge(StackReleases, metric.WithDescription("running instances per stack release and Ready (visibility; use max())"))
	if err != nil {
		return err
	}
	sweepAge, err := m.meter.Float64ObservableGauge(ObserverSweepAge, metric.WithUnit("s"), metric.WithDescription("seconds since the deployer observer's last sweep listed the apps"))
	if err != nil {
		return err
	}
	refreshed, err := m.meter.Float64ObservableGauge(FleetRefreshed, metric.WithDescription("unix time of the last good refresh of the fleet gauges"))
	if err != nil {
		return err
	}
	// Scrapes read the cached counts: a scrape never waits for visibility.
	_, err = m.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		m.mu.Lock()
		f := m.fleet
		m.mu.Unlock()
		if f == nil {
			return nil
		}
		for state, n := range f.States {
			o.ObserveInt64(instances, n, metric.WithAttributes(attribute.String("state", state)))
		}
		for r, n := range f.Ready {
			o.ObserveInt64(ready, n, metric.WithAttributes(attribute.String("ready", r)))
		}
		for k, n := range f.Releases {
			o.ObserveInt64(releases, n, metric.WithAttributes(attribute.String("stack", k.Stack), attribute.String("release", k.Release),
				attribute.String("ready", k.Ready)))
		}
		o.ObserveInt64(approvals, f.ApprovalsWaiting)
		o.ObserveInt64(retrying, f.StepsRetrying)
		if !f.LastSweep.IsZero() {
			o.ObserveFloat64(sweepAge, time.Since(f.LastSweep).Seconds())
		}
		o.ObserveFloat64(refreshed, float64(f.At.UnixNano())/1e9)
		return nil
	}, instances, ready, releases, approvals, retrying, sweepAge, refreshed)
	return err
}

// Handler serves the registry in Prometheus's text (or OpenMetrics) format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is where every metric of this process is gathered (tests read it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Temporal is the SDK's metrics handler on this provider, for client.WithMetricsHandler.
func (m *Metrics) Temporal() client.MetricsHandler { return m.temporal }

// Meter is slipway's meter, for instruments a package adds itself.
func (m *Metrics) Meter() metric.Meter { return m.meter }

// Mux serves /healthz and /readyz from h and /metrics: the telemetry listener's whole API.
// Each scrape also runs h's checks for slipway_ready, so an alert sees what the probe sees.
func (m *Metrics) Mux(h *health.Checker) http.Handler {
	m.readyOnce.Do(func() {
		_, _ = m.meter.Int64ObservableGauge(Ready, metric.WithDescription("1 when every readiness check passes, else 0"),
			metric.WithInt64Callback(func(ctx context.Context, o metric.Int64Observer) error {
				if h.Check(ctx).Ready {
					o.Observe(1)
				} else {
					o.Observe(0)
				}
				return nil
			}))
	})
	mux := http.NewServeMux()
	probes := h.Handler()
	mux.Handle("/healthz", probes)
	mux.Handle("/readyz", probes)
	mux.Handle("/metrics", m.Handler())
	return mux
}

// Paths are the telemetry paths Front takes ahead of an application's own handler.
var Paths = []string{"/healthz", "/readyz", "/metrics"}

// Front serves the telemetry paths from mux and everything else from app. Probes and scrapes
// come from the kubelet and Prometheus by pod IP, which an application's Host check and auth
// would refuse, and they reveal no secrets. An app that refuses requests from their headers
// (Admit, see internal/httpserve) keeps doing so for every other path.
func Front(mux, app http.Handler) http.Handler {
	f := front{mux: mux, app: app}
	if a, ok := app.(admitter); ok {
		if rf, ok := app.(refuser); ok {
			return refusingFront{admittingFront{front: f, admit: a}, rf}
		}
		return admittingFront{front: f, admit: a}
	}
	return f
}

// refuser is httpserve.Refuser: the app writes the server's refusals in its own error format.
type refuser interface {
	Refuse(w http.ResponseWriter, code int, msg string)
}

type refusingFront struct {
	admittingFront
	refuser
}

// admitter is httpserve.Admitter, named here so that the two packages stay apart.
type admitter interface {
	Admit(r *http.Request) (code int, err error)
}

type front struct{ mux, app http.Handler }

func isTelemetry(r *http.Request) bool {
	for _, p := range Paths {
		if r.URL.Path == p {
			return true
		}
	}
	return false
}

func (f front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if isTelemetry(r) {
		f.mux.ServeHTTP(w, r)
		return
	}
	f.app.ServeHTTP(w, r)
}

type admittingFront struct {
	front
	admit admitter
}

func (f admittingFront) Admit(r *http.Request) (int, error) {
	if isTelemetry(r) {
		return 0, nil
	}
	return f.admit.Admit(r)
}

// WebhookDelivery counts one delivery answered with outcome (see webhook.Outcome).
func (m *Metrics) WebhookDelivery(forge, outcome string) {
	m.deliveries.Add(context.Background(), 1, metric.WithAttributes(attribute.String("forge", forge), attribute.String("outcome", outcome)))
}

// Shutdown flushes and stops the provider.
func (m *Metrics) Shutdown(ctx context.Context) error { return m.provider.Shutdown(ctx) }
