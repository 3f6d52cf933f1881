package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/slipway-dev/slipway/internal/tracing"
)

// With an OTLP endpoint set, one CLI run is one request span, exported with service "slipway"
// when the run ends and marked failed by its exit code; a serving command gets no request span.
// With none set, nothing is traced and no client interceptor is added.
func TestCLIRequestSpan(t *testing.T) {
	for _, k := range []string{tracing.EnvExporter, tracing.EnvEndpoint, tracing.EnvTracesEndpoint, tracing.EnvSDKDisabled, tracing.EnvServiceName} {
		t.Setenv(k, "")
	}
	ctx, end, err := traceCommand(t.Context(), []string{"deploy", "acme/web"})
	require.NoError(t, err)
	require.False(t, trace.SpanFromContext(ctx).SpanContext().IsValid(), "off by default")
	end(ExitOK)
	require.Empty(t, tracingOptions())

	var mu sync.Mutex
	var names []string
	var services []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := &collectortrace.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					services = append(services, a.Value.GetStringValue())
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name+" "+s.Status.GetCode().String())
				}
			}
		}
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	defer srv.Close()
	t.Setenv(tracing.EnvEndpoint, srv.URL)
	require.Len(t, tracingOptions(), 1, "the client gets the SDK's tracing interceptor")

	ctx, end, err = traceCommand(t.Context(), []string{"--task-queue=x", "deploy", "acme/web"})
	require.NoError(t, err)
	require.True(t, trace.SpanFromContext(ctx).SpanContext().IsValid())
	end(ExitUsage)
	ctx, end, err = traceCommand(t.Context(), []string{"server", "--listen", "127.0.0.1:0"})
	require.NoError(t, err)
	require.False(t, trace.SpanFromContext(ctx).SpanContext().IsValid(), "a server has no request span")
	end(ExitOK)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"slipway deploy STATUS_CODE_ERROR"}, names)
	require.Equal(t, []string{"slipway"}, services)

	t.Setenv(tracing.EnvExporter, "jaeger")
	_, _, err = traceCommand(t.Context(), []string{"deploy"})
	require.ErrorContains(t, err, tracing.EnvExporter)
}
