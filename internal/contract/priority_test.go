package contract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A person's request goes first, a rollout's next; a request's own priority is checked by range.
func TestOperationPriority(t *testing.T) {
	require.Equal(t, PriorityPerson, OperationPriority(""))
	require.Equal(t, PriorityRollout, OperationPriority(RolloutWorkflowID("r1")))
	require.Less(t, PriorityPerson, PriorityRollout)
	require.Less(t, PriorityRollout, PriorityDrift)
	require.NoError(t, CheckPriority("priority", 0))
	require.NoError(t, CheckPriority("priority", PriorityLowest))
	require.ErrorContains(t, CheckPriority("priority", 6), "priority: 6 is out of range")
	require.ErrorContains(t, CheckPriority("priority", -1), "priority: -1 is out of range")
	p := TaskPriority(PriorityRollout, "acme")
	require.Equal(t, 3, p.PriorityKey)
	require.Equal(t, "acme", p.FairnessKey)
}
