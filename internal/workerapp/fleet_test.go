package workerapp

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestWatchedQueryNamesTheTaskQueueAndObservedStates(t *testing.T) {
	q := watchedQuery("team-a")
	require.Equal(t, "WorkflowType = 'InstanceWorkflow' AND ExecutionStatus = 'Running' AND TaskQueue = 'team-a' AND "+
		"InstanceState IN ('DeploymentFailed', 'Deployed', 'ArchiveFailed', 'DestroyFailed', 'DeprovisioningFailed')", q)
}

func TestRefOfReadsInstanceWorkflowIDsOnly(t *testing.T) {
	r, ok := refOf(contract.InstanceWorkflowID(contract.Ref{Tenant: "a-b", Name: "c"}))
	require.True(t, ok)
	require.Equal(t, contract.Ref{Tenant: "a-b", Name: "c"}, r)
	for _, id := range []string{"instance/a", "instance//c", "instance/a/b/deploy-1/attempt-1", "observer/q/argocd-1", "delivery/github/1"} {
		_, ok := refOf(id)
		require.False(t, ok, id)
	}
}
