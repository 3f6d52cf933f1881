// Package tracing sets up OpenTelemetry traces from the standard OTEL_* variables (off unless
// they ask for an exporter) and carries one trace from a CLI request through the server, the
// Temporal client, the workflow and its activities into terraform, forge and ArgoCD calls.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"

	"github.com/slipway-dev/slipway/internal/version"
)

// The standard variables tracing reads itself; the exporters read the rest of OTEL_EXPORTER_OTLP_*.
const (
	EnvExporter       = "OTEL_TRACES_EXPORTER"
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvProtocol       = "OTEL_EXPORTER_OTLP_PROTOCOL"
	EnvTracesProtocol = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	EnvSDKDisabled    = "OTEL_SDK_DISABLED"
	EnvServiceName    = "OTEL_SERVICE_NAME"
)

// ScopeName names slipway's own spans (terraform, git) in the tracing backend.
const ScopeName = "github.com/slipway-dev/slipway"

// Propagator is W3C trace context plus baggage, used explicitly everywhere so no global
// setting decides whether a trace crosses a process.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// exporterKind is what OTEL_TRACES_EXPORTER and the endpoints ask for: "" means tracing is off.
func exporterKind(getenv func(string) string) (string, error) {
	if strings.EqualFold(strings.TrimSpace(getenv(EnvSDKDisabled)), "true") {
		return "", nil
	}
	switch v := strings.TrimSpace(getenv(EnvExporter)); v {
	case "":
		// Off by default: an endpoint alone is asking for OTLP.
		if getenv(EnvEndpoint) != "" || getenv(EnvTracesEndpoint) != "" {
			return "otlp", nil
		}
		return "", nil
	case "none":
		return "", nil
	case "otlp", "console":
		return v, nil
	default:
		return "", fmt.Errorf("%s=%q: want otlp, console or none", EnvExporter, v)
	}
}

// Enabled reports whether the environment turns tracing on (see Setup).
func Enabled(getenv func(string) string) bool {
	k, err := exporterKind(getenv)
	return err == nil && k != ""
}

// Setup installs the global TracerProvider that OTEL_* asks for: tracing is on when
// OTEL_TRACES_EXPORTER is otlp or console, or an OTLP endpoint is set, and OTEL_SDK_DISABLED is
// not true. service is the service.name unless OTEL_SERVICE_NAME says otherwise. Off, it installs
// nothing and shutdown does nothing. A bad value is an error naming the variable.
func Setup(ctx context.Context, service string) (shutdown func(context.Context) error, enabled bool, err error) {
	noop := func(context.Context) error { return nil }
	kind, err := exporterKind(os.Getenv)
	if err != nil || kind == "" {
		return noop, false, err
	}
	exp, err := newExporter(ctx, kind, os.Getenv)
	if err != nil {
		return noop, false, err
	}
	tp, err := NewProvider(ctx, service, sdktrace.WithBatcher(exp))
	if err != nil {
		return noop, false, err
	}
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(Propagator)
	return tp.Shutdown, true, nil
}

// NewProvider is a TracerProvider for service with slipway's resource (service.name from
// OTEL_SERVICE_NAME or service, service.version, OTEL_RESOURCE_ATTRIBUTES); the sampler follows
// OTEL_TRACES_SAMPLER. Tests pass their own span processor.
func NewProvider(ctx context.Context, service string, opts ...sdktrace.TracerProviderOption) (*sdktrace.TracerProvider, error) {
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(service), semconv.ServiceVersion(version.Get().Version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	return sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithResource(res)}, opts...)...), nil
}

// newExporter builds the exporter kind names; the OTLP exporters read their endpoint, headers,
// TLS and timeout from OTEL_EXPORTER_OTLP_* themselves.
func newExporter(ctx context.Context, kind string, getenv func(string) string) (sdktrace.SpanExporter, error) {
	if kind == "console" {
		return stdouttrace.New(stdouttrace.WithWriter(os.Stderr))
	}
	name, proto := EnvTracesProtocol, getenv(EnvTracesProtocol)
	if proto == "" {
		name, proto = EnvProtocol, getenv(EnvProtocol)
	}
	switch proto {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	default:
		return nil, fmt.Errorf("%s=%q: want grpc or http/protobuf", name, proto)
	}
}

// Option adjusts the interceptors (tests give them their own provider).
type Option func(*temporalotel.TracerOptions)

// WithTracerProvider makes the interceptor's spans with tp instead of the global provider.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *temporalotel.TracerOptions) { o.Tracer = tp.Tracer("temporal-sdk-go") }
}

func interceptorOf(opts []Option) interceptor.Interceptor {
	o := temporalotel.TracerOptions{TextMapPropagator: Propagator}
	for _, opt := range opts {
		opt(&o)
	}
	ic, err := temporalotel.NewTracingInterceptor(o)
	if err != nil {
		// NewTracingInterceptor fails only on options this package never sets.
		panic(err)
	}
	return ic
}

// ClientInterceptor is the Temporal SDK's OpenTelemetry interceptor for clients: a span for each
// start, update, signal and query, carried to the worker in the request's header. Only its client
// half: the SDK would also put a client's worker interceptors on each worker made from the
// client, which then traces only when WorkerInterceptor is added (app.Config.Tracing).
func ClientInterceptor(opts ...Option) interceptor.ClientInterceptor {
	return clientOnly{interceptorOf(opts)}
}

type clientOnly struct{ interceptor.ClientInterceptor }

// WorkerInterceptor is the same interceptor for workers: RunWorkflow, StartActivity and
// RunActivity spans under the caller's. It creates no spans on replay and adds no commands.
func WorkerInterceptor(opts ...Option) interceptor.WorkerInterceptor { return interceptorOf(opts) }

// Start starts a span named name under ctx's span, made by the same provider (so spans under an
// activity follow its provider), or by the global one when ctx has none.
func Start(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	tp := otel.GetTracerProvider()
	if s := trace.SpanFromContext(ctx); s.SpanContext().IsValid() {
		tp = s.TracerProvider()
	}
	return tp.Tracer(ScopeName).Start(ctx, name, trace.WithAttributes(attrs...))
}

// End records err (if any) on span and ends it.
func End(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// HTTPTransport wraps rt (nil: http.DefaultTransport) so each request made within a traced
// operation gets a client span and carries its traceparent. Requests with no span in their
// context (background polls) pass through untraced; no HTTP metrics are recorded here.
func HTTPTransport(rt http.RoundTripper) http.RoundTripper {
	if rt == nil {
		rt = http.DefaultTransport
	}
	if _, ok := rt.(*otelhttp.Transport); ok {
		return rt
	}
	return otelhttp.NewTransport(rt, otelhttp.WithPropagators(Propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()),
		otelhttp.WithFilter(func(r *http.Request) bool { return trace.SpanFromContext(r.Context()).SpanContext().IsValid() }),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method + " " + r.URL.Host }))
}

// HTTPClient is a copy of hc (nil: a new client) whose transport is HTTPTransport's.
func HTTPClient(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		cc := *hc
		c = &cc
	}
	c.Transport = HTTPTransport(c.Transport)
	return c
}

// Handler wraps h so a request carrying a traceparent continues that trace in a server span.
func Handler(h http.Handler, operation string) http.Handler {
	return otelhttp.NewHandler(h, operation, otelhttp.WithPropagators(Propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
}
