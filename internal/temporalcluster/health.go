package temporalcluster

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// quietLogger keeps the SDK's connection chatter about nodes still starting out of the way.
var quietLogger = log.NewStructuredLogger(slog.New(slog.DiscardHandler))

// healthy reports whether the frontend at addr answers a gRPC health check within timeout.
func healthy(ctx context.Context, addr string, timeout time.Duration) bool {
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
