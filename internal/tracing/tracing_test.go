package tracing

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// unsetOTEL clears every variable Setup reads, for this test.
func unsetOTEL(t *testing.T) {
	for _, k := range []string{EnvExporter, EnvEndpoint, EnvTracesEndpoint, EnvProtocol, EnvTracesProtocol, EnvSDKDisabled, EnvServiceName, "OTEL_RESOURCE_ATTRIBUTES"} {
		t.Setenv(k, "")
	}
}

// With no OTEL_* set tracing is off: no provider installed, nothing to export, no interceptor.
func TestSetupIsOffByDefault(t *testing.T) {
	unsetOTEL(t)
	before := otel.GetTracerProvider()
	shutdown, on, err := Setup(t.Context(), "slipway-worker")
	require.NoError(t, err)
	require.False(t, on)
	require.Same(t, before, otel.GetTracerProvider(), "no provider installed")
	_, isSDK := otel.GetTracerProvider().(*sdktrace.TracerProvider)
	require.False(t, isSDK)
	require.NoError(t, shutdown(t.Context()))
	for _, env := range []map[string]string{{EnvExporter: "none", EnvEndpoint: "http://127.0.0.1:4318"}, {EnvSDKDisabled: "true", EnvExporter: "otlp"}} {
		get := func(k string) string { return env[k] }
		require.False(t, Enabled(get), "%v", env)
	}
}

// A bad value is refused, naming the variable, before anything is installed.
func TestSetupRefusesBadValues(t *testing.T) {
	unsetOTEL(t)
	t.Setenv(EnvExporter, "zipkin")
	_, _, err := Setup(t.Context(), "slipway")
	require.ErrorContains(t, err, `OTEL_TRACES_EXPORTER="zipkin"`)
	t.Setenv(EnvExporter, "otlp")
	t.Setenv(EnvProtocol, "thrift")
	_, on, err := Setup(t.Context(), "slipway")
	require.ErrorContains(t, err, `OTEL_EXPORTER_OTLP_PROTOCOL="thrift"`)
	require.False(t, on)
}

// An endpoint alone turns tracing on: the spans reach an OTLP/HTTP receiver with the service name.
func TestSetupExportsOverOTLP(t *testing.T) {
	unsetOTEL(t)
	var mu sync.Mutex
	var got []*collectortrace.ExportTraceServiceRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, req) != nil {
			http.Error(w, "not a trace export", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		_, _ = w.Write(out)
	}))
	defer srv.Close()
	t.Setenv(EnvEndpoint, srv.URL)
	shutdown, on, err := Setup(t.Context(), "slipway-worker")
	require.NoError(t, err)
	require.True(t, on)
	_, span := Start(t.Context(), "terraform apply")
	span.End()
	require.NoError(t, shutdown(t.Context()), "shutdown flushes")
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, got)
	rs := got[0].ResourceSpans[0]
	var service string
	for _, a := range rs.Resource.Attributes {
		if a.Key == "service.name" {
			service = a.Value.GetStringValue()
		}
	}
	require.Equal(t, "slipway-worker", service)
	require.Equal(t, "terraform apply", rs.ScopeSpans[0].Spans[0].Name)
}

// An HTTP call made under a span carries its traceparent to the server, whose span continues the
// trace; a call with no span in its context passes through untraced.
func TestHTTPTransportCarriesTheTrace(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	var seen []string
	srv := httptest.NewServer(Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Traceparent"))
	}), "slipway server"))
	defer srv.Close()
	hc := HTTPClient(nil)
	ctx, root := tp.Tracer("test").Start(context.Background(), "slipway deploy")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	root.End()
	req, _ = http.NewRequestWithContext(context.Background(), http.MethodGet, srv.URL, nil)
	resp, err = hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Len(t, seen, 2)
	require.Contains(t, seen[0], root.SpanContext().TraceID().String())
	require.Empty(t, seen[1], "no span, no traceparent")
	var client bool
	for _, s := range exp.GetSpans() {
		require.Equal(t, root.SpanContext().TraceID(), s.SpanContext.TraceID())
		client = client || s.SpanKind == trace.SpanKindClient
	}
	require.True(t, client, "the client's span, made by the caller's provider")
}

// OTEL_EXPORTER_OTLP_PROTOCOL=grpc exports to an OTLP/gRPC receiver (a collector's port 4317).
func TestSetupExportsOverOTLPgRPC(t *testing.T) {
	unsetOTEL(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rcv := &grpcReceiver{}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, rcv)
	go func() { _ = srv.Serve(ln) }()
	defer srv.Stop()
	t.Setenv(EnvEndpoint, "http://"+ln.Addr().String()) // http: no TLS, on loopback
	t.Setenv(EnvProtocol, "grpc")
	shutdown, on, err := Setup(t.Context(), "slipway-server")
	require.NoError(t, err)
	require.True(t, on)
	_, span := Start(t.Context(), "git update-ref")
	span.End()
	require.NoError(t, shutdown(t.Context()))
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	require.Equal(t, []string{"git update-ref"}, rcv.names)
}

type grpcReceiver struct {
	collectortrace.UnimplementedTraceServiceServer
	mu    sync.Mutex
	names []string
}

func (r *grpcReceiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				r.names = append(r.names, s.Name)
			}
		}
	}
	return &collectortrace.ExportTraceServiceResponse{}, nil
}
