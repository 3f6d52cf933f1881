package devenv

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// quietLogger keeps the SDK's connection chatter out of the terminal.
var quietLogger = log.NewStructuredLogger(slog.New(slog.DiscardHandler))

// Reachable reports whether a Temporal frontend answers a health check at addr
// within timeout.
func Reachable(ctx context.Context, addr string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Logger: quietLogger})
	if err != nil {
		return false
	}
	defer c.Close()
	_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err == nil
}

// namespaceReady reports whether namespace can be described at addr: the
// frontend may answer health checks a moment before its namespace cache is warm.
func namespaceReady(ctx context.Context, addr, namespace string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := client.NewNamespaceClient(client.Options{HostPort: addr, Logger: quietLogger})
	if err != nil {
		return false
	}
	defer nc.Close()
	_, err = nc.Describe(ctx, namespace)
	return err == nil
}
