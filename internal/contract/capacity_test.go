package contract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Status finds the budget a step waits for in the detail the pipeline recorded, and no other.
func TestCapacityWaitingForReadsTheBudgetBack(t *testing.T) {
	line := CapacityWaiting("aws-prod", CapacityPlace{InUse: 8, Slots: 8, Ahead: 3})
	require.Equal(t, "waiting for budget aws-prod (8/8 in use, 3 ahead)", line)
	budget, ok := CapacityWaitingFor(line)
	require.True(t, ok)
	require.Equal(t, "aws-prod", budget)
	for _, other := range []string{"", "slot of budget aws-prod granted after 42s", "waiting for budget aws-prod", "waiting for approval"} {
		_, ok := CapacityWaitingFor(other)
		require.False(t, ok, other)
	}
}
