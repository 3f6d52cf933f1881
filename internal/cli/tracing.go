package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/tracing"
)

// servingCommands run until stopped: they get a service name of their own and no request span,
// whose trace would hold every request they ever serve.
var servingCommands = map[string]string{"server": "slipway-server", "webhook": "slipway-webhook",
	"codec-server": "slipway-codec-server", "dev": "slipway-dev", "demo": "slipway-demo"}

// traceCommand sets tracing up as OTEL_* asks (off by default) and starts the request span of
// one CLI run; end records the exit code and flushes the spans. A bad OTEL_* value is an error.
func traceCommand(ctx context.Context, args []string) (context.Context, func(code int), error) {
	name := commandName(args)
	service, serving := servingCommands[name]
	if !serving {
		service = "slipway"
	}
	shutdown, on, err := tracing.Setup(ctx, service)
	if err != nil {
		return ctx, nil, err
	}
	if !on || serving {
		return ctx, func(int) { flush(shutdown) }, nil
	}
	ctx, span := tracing.Start(ctx, strings.TrimSpace("slipway "+name))
	return ctx, func(code int) {
		span.SetAttributes(attribute.Int("slipway.exit_code", code))
		var err error
		if code != ExitOK {
			err = fmt.Errorf("exit code %d", code)
		}
		tracing.End(span, err)
		flush(shutdown)
	}, nil
}

// commandName is the first word of args that is not a flag: the command (its value-taking global
// flags come as --flag=value in scripts; a stray value only renames the span).
func commandName(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// flush exports the spans still buffered, within a bound: an unreachable collector must not hold the exit.
func flush(shutdown func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "warning: traces not exported:", err)
	}
}

// tracingOptions add the Temporal SDK's tracing interceptor to a client when OTEL_* turns tracing on.
func tracingOptions() []client.Option {
	if !tracing.Enabled(os.Getenv) {
		return nil
	}
	return []client.Option{client.WithInterceptors(tracing.ClientInterceptor())}
}
