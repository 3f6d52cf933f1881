package cli

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

// A rollout's --priority is checked before anything is sent: out of range is exit 2 naming it.
func TestRolloutPriorityFlag(t *testing.T) {
	f := rolloutFlags{stack: "example", set: []string{"replicas=2"}, order: contract.OrderName, batch: "25%", maxFailures: 1}
	for _, p := range []int{0, 6, -1} {
		f.priority = p
		_, err := f.spec(&globals{})
		var ee *exitError
		require.True(t, errors.As(err, &ee), "priority %d: %v", p, err)
		require.Equal(t, ExitUsage, ee.code)
		require.Contains(t, ee.msg, "--priority")
	}
	f.priority = contract.PriorityDrift
	s, err := f.spec(&globals{})
	require.NoError(t, err)
	require.Equal(t, contract.PriorityDrift, s.Priority)
}
