package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// The CLI's request span reaches `slipway server` over HTTP: the server's span for the request
// is in the CLI's trace, under the CLI client's span, so what it sends to Temporal is too.
func TestServerContinuesTheCLITrace(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	otel.SetTracerProvider(tp) // the server's spans come from the process's provider, as after tracing.Setup
	p := oidcprovider.Start(t, oidcprovider.Options{})
	url := serve(t, p, nil)
	alice, err := p.SignIn(t.Context(), "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	c, err := apiserver.NewClient(url, func(context.Context) (string, error) { return alice.IDToken, nil })
	require.NoError(t, err)

	ctx, root := tp.Tracer("cli").Start(t.Context(), "slipway whoami")
	who, err := c.Whoami(ctx)
	require.NoError(t, err)
	root.End()
	require.Equal(t, "alice", who.Name)

	var client, server *tracetest.SpanStub
	spans := exp.GetSpans()
	for i, s := range spans {
		require.Equal(t, root.SpanContext().TraceID(), s.SpanContext.TraceID(), "span %q in another trace", s.Name)
		switch s.SpanKind {
		case trace.SpanKindClient:
			client = &spans[i]
		case trace.SpanKindServer:
			server = &spans[i]
		}
	}
	require.NotNil(t, client, "the CLI's HTTP call is a span")
	require.NotNil(t, server, "the server's handling is a span")
	require.Equal(t, root.SpanContext().SpanID(), client.Parent.SpanID())
	require.Equal(t, client.SpanContext.SpanID(), server.Parent.SpanID(), "the server continues the CLI's trace")
	require.True(t, server.Parent.IsRemote())
}
