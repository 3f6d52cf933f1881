package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestStatusOfMissingAppIsNotDeployed(t *testing.T) {
	f := newFake(t)
	st, err := NewDeployer(f.client(t)).Status(context.Background(), testApp())
	require.NoError(t, err)
	require.Equal(t, "argocd", st.Deployer)
	require.False(t, st.Deployed)
	require.Equal(t, "no application", st.Message)
}

func TestStatusIsReadOnly(t *testing.T) {
	f := newFake(t)
	d := NewDeployer(f.client(t))
	_, err := d.Deploy(context.Background(), testApp(), farDeadline())
	require.NoError(t, err)
	before := len(f.callList())

	st, err := d.Status(context.Background(), testApp())
	require.NoError(t, err)
	require.True(t, st.Deployed)
	require.Equal(t, SyncSynced, st.Sync)
	require.Equal(t, HealthHealthy, st.Health)
	require.Len(t, st.Resources, 2)
	calls := f.callList()[before:]
	require.Equal(t, []string{"GET /api/v1/applications?name=acme-web", "GET /api/v1/clusters"}, calls, "reads only: the app and the clusters' connection state")
}

func TestStatusBeforeComparisonListsManifestObjects(t *testing.T) {
	f := newFake(t)
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}, Spec: ApplicationSpec{
		Destination: ApplicationDestination{Server: "https://10.1.2.3:6443", Namespace: "acme-web"}}})
	st, err := NewDeployer(f.client(t)).Status(context.Background(), testApp())
	require.NoError(t, err)
	require.Len(t, st.Resources, 2)
	for _, r := range st.Resources {
		require.Equal(t, "Pending", r.RsyncStatus)
		require.Equal(t, "Unknown", r.ClusterStatus)
		require.Equal(t, "10.1.2.3:6443", r.Cluster)
	}
}

func TestResourceStatusMapping(t *testing.T) {
	a := &Application{
		Spec: ApplicationSpec{Destination: ApplicationDestination{Name: "in-cluster"}},
		Status: ApplicationStatus{
			OperationState: &OperationState{Phase: PhaseRunning, SyncResult: &SyncOperationResult{Resources: []ResourceResult{
				{Kind: "Secret", Namespace: "n", Name: "bad", Status: resultSyncFailed, Message: "denied"},
			}}},
			Resources: []ResourceStatus{
				{Kind: "ConfigMap", Namespace: "n", Name: "ok", Status: SyncSynced, Health: &HealthStatus{Status: HealthHealthy}},
				{Kind: "ConfigMap", Namespace: "n", Name: "wait", Status: SyncOutOfSync, Health: &HealthStatus{Status: HealthMissing}},
				{Kind: "Secret", Namespace: "n", Name: "bad", Status: SyncOutOfSync},
			},
		},
	}
	got := resources(a, testApp())
	require.Equal(t, []string{"Applied", "Retrying", "Failed"}, []string{got[0].RsyncStatus, got[1].RsyncStatus, got[2].RsyncStatus})
	require.Equal(t, []string{"Present", "NotPresent", "Unknown"}, []string{got[0].ClusterStatus, got[1].ClusterStatus, got[2].ClusterStatus})
	require.Equal(t, "denied", got[2].Message)
	require.Equal(t, "in-cluster", got[0].Cluster)

	a.Status.OperationState = &OperationState{Phase: PhaseSucceeded}
	got = resources(a, testApp())
	require.Equal(t, "Pending", got[1].RsyncStatus, "OutOfSync with nothing running is Pending")
}

// ArgoCD's comparison error for a destination it cannot reach makes every resource Retrying
// with cluster-status Unknown (EMCO); other comparison errors leave the mapping alone.
func TestUnreachableClusterIsRetrying(t *testing.T) {
	a := &Application{
		Spec: ApplicationSpec{Destination: ApplicationDestination{Name: "edge-b"}},
		Status: ApplicationStatus{
			Conditions: []Condition{{Type: "ComparisonError", Message: `Failed to load live state: failed to get cluster info for "https://127.0.0.1:1": dial tcp 127.0.0.1:1: connect: connection refused`}},
			Resources:  []ResourceStatus{{Kind: "ConfigMap", Namespace: "n", Name: "ok", Status: SyncSynced, Health: &HealthStatus{Status: HealthHealthy}}},
		},
	}
	got := resources(a, testApp())
	require.Equal(t, "Retrying", got[0].RsyncStatus)
	require.Equal(t, "Unknown", got[0].ClusterStatus)
	require.Contains(t, got[0].Message, "cluster unreachable")

	a.Status.Resources = nil // never compared: the manifests' objects, Retrying too
	got = resources(a, testApp())
	require.Len(t, got, 2)
	for _, r := range got {
		require.Equal(t, "Retrying", r.RsyncStatus)
		require.Equal(t, "edge-b", r.Cluster)
	}

	a.Status.Conditions = []Condition{{Type: "ComparisonError", Message: "rpc error: manifest generation failed: yaml: line 3"}}
	require.Empty(t, Unreachable(a))
	require.Equal(t, "Pending", resources(a, testApp())[0].RsyncStatus)
}

// A destination ArgoCD lists as Failed to connect makes the app's resources Retrying and its
// health Unknown even while its conditions (in ArgoCD's grace period) say nothing yet.
func TestDownClusterIsRetrying(t *testing.T) {
	a := &Application{Spec: ApplicationSpec{Destination: ApplicationDestination{Server: "https://10.0.0.9:6443"}}}
	st := contract.AppStatus{Health: HealthHealthy, Resources: []contract.Resource{{Kind: "ConfigMap", Name: "app", RsyncStatus: "Applied", ClusterStatus: "Present"}}}
	down := map[string]string{"https://10.0.0.9:6443": "ArgoCD cannot connect to cluster https://10.0.0.9:6443: connection refused"}
	got := markDown(st, a, down)
	require.Equal(t, HealthUnknown, got.Health)
	require.Equal(t, "Retrying", got.Resources[0].RsyncStatus)
	require.Equal(t, "Unknown", got.Resources[0].ClusterStatus)
	require.Equal(t, "Applied", st.Resources[0].RsyncStatus, "the caller's resources are left as they were")
	require.Equal(t, st, markDown(st, &Application{Spec: ApplicationSpec{Destination: ApplicationDestination{Server: "https://other"}}}, down))
}
