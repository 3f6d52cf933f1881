package devenv

import (
	"context"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
)

// Reachable reports whether a Temporal frontend answers a health check at addr within timeout.
var Reachable = temporalcluster.Reachable

// namespaceReady reports whether namespace can be described at addr: the
// frontend may answer health checks a moment before its namespace cache is warm.
func namespaceReady(ctx context.Context, addr, namespace string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, err := client.NewNamespaceClient(client.Options{HostPort: addr, Logger: temporalcluster.QuietLogger})
	if err != nil {
		return false
	}
	defer nc.Close()
	_, err = nc.Describe(ctx, namespace)
	return err == nil
}
