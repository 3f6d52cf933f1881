package temporalcluster

import (
	"context"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// QuietLogger keeps the SDK's connection chatter about servers still starting out of the way.
var QuietLogger = log.NewStructuredLogger(slog.New(slog.DiscardHandler))

// Reachable reports whether a Temporal frontend at addr answers a gRPC health check within
// timeout (a dev server or a cluster node alike).
func Reachable(ctx context.Context, addr string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{HostPort: addr, Logger: QuietLogger})
	if err != nil {
		return false
	}
	defer c.Close()
	_, err = c.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err == nil
}
