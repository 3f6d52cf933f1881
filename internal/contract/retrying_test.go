package contract

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// The worker finds the instance and operation of a retrying activity from its pipeline's ID.
func TestPipelineOf(t *testing.T) {
	id := PipelineWorkflowID(Ref{Tenant: "acme", Name: "web"}, lifecycle.OpDeploy, "0b7c-41d2", 2)
	instance, op, ok := PipelineOf(id)
	require.True(t, ok)
	require.Equal(t, "instance/acme/web", instance)
	require.Equal(t, "0b7c-41d2", op)
	for _, other := range []string{"instance/acme/web", "rollout/r1", "notify/instance/acme/web/x-1", "instance/acme/web/deploy/attempt-1"} {
		_, _, ok := PipelineOf(other)
		require.False(t, ok, other)
	}
}
