package argocd

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

func TestPlacedNameStaysALabelValue(t *testing.T) {
	require.Equal(t, "acme-web-in-cluster", PlacedName("acme-web", "in-cluster"))
	require.Equal(t, "acme-web-prod-eu-1", PlacedName("acme-web", "Prod_EU.1"))
	long := PlacedName(strings.Repeat("a", 60), "edge")
	require.LessOrEqual(t, len(long), 63)
	require.NotEqual(t, long, PlacedName(strings.Repeat("a", 60), "edge2"), "the hash keeps clusters apart")
}

// One cluster down makes the app not Healthy and its resources Retrying; the other cluster's stay Applied.
func TestAggregateOneClusterDown(t *testing.T) {
	d := NewDeployer(newFake(t).client(t))
	app := testApp()
	up := placed{cluster: Cluster{Name: "in-cluster"}, st: contract.AppStatus{Deployed: true, Sync: SyncSynced, Health: HealthHealthy,
		Application: "acme-web-in-cluster", Resources: []contract.Resource{{Cluster: "in-cluster", Kind: "ConfigMap", Name: "app", RsyncStatus: "Applied"}}}}
	down := placed{cluster: Cluster{Name: "edge"}, unreachable: errors.New("dial tcp 127.0.0.1:1: connect: connection refused"),
		st: contract.AppStatus{Resources: retrying(pendingObjects(app, "edge"), "dial tcp 127.0.0.1:1: connect: connection refused")}}
	st := d.aggregate(app, []placed{down, up})
	require.True(t, st.Deployed)
	require.Equal(t, "Unknown", st.Health)
	require.Equal(t, "Unknown", st.Sync)
	require.Contains(t, st.Message, "cluster edge: cluster unreachable: dial tcp")
	require.Len(t, st.Clusters, 2)
	require.False(t, st.Clusters[0].Reachable)
	require.True(t, st.Clusters[1].Reachable)
	for _, r := range st.Resources {
		if r.Cluster == "edge" {
			require.Equal(t, "Retrying", r.RsyncStatus)
		} else {
			require.Equal(t, "Applied", r.RsyncStatus)
		}
	}
	both := d.aggregate(app, []placed{up, up})
	require.Equal(t, HealthHealthy, both.Health)
	require.Equal(t, SyncSynced, both.Sync)
}

func TestUnreachableConditionAndSelector(t *testing.T) {
	a := &Application{Status: ApplicationStatus{Conditions: []Condition{{Type: "ComparisonError", Message: `Failed to load live state: Get "https://127.0.0.1:2/version": dial tcp 127.0.0.1:2: connect: connection refused`}}}}
	require.Contains(t, Unreachable(a), "connection refused")
	a.Status.Conditions[0].Type = "SyncError"
	require.Empty(t, Unreachable(a))
	require.True(t, matches(map[string]string{"tier": "edge", "x": "y"}, map[string]string{"tier": "edge"}))
	require.False(t, matches(map[string]string{"tier": "core"}, map[string]string{"tier": "edge"}))
	require.True(t, deploy.Placement{Selector: map[string]string{"a": "b"}}.Several())
	require.False(t, deploy.Placement{Cluster: "edge"}.Several(), "argocd.destination keeps the single-cluster path")
}

// Only the Applications slipway placed are the instance's: the labels alone are not enough.
func TestIsPlacedNeedsNameAndDestination(t *testing.T) {
	app := testApp()
	mk := func(name, dest, label string) *Application {
		return &Application{Metadata: ObjectMeta{Name: name, Labels: map[string]string{LabelTenant: app.Ref.Tenant, LabelName: app.Ref.Name, LabelCluster: label}},
			Spec: ApplicationSpec{Destination: ApplicationDestination{Name: dest, Namespace: app.Namespace}}}
	}
	require.True(t, isPlaced(mk(PlacedName(app.Application, "edge"), "edge", "edge"), app))
	require.False(t, isPlaced(mk("someone-elses", "edge", "edge"), app), "another name")
	require.False(t, isPlaced(mk(PlacedName(app.Application, "edge"), "prod", "edge"), app), "another destination")
	require.False(t, isPlaced(mk(app.Application, "", ""), app), "the single-cluster app")
}
