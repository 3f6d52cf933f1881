package argocd

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

// A selector that picks two clusters whose Applications would share a name is refused, naming the field.
func TestResolveRefusesClustersThatNameAlike(t *testing.T) {
	f := newFake(t)
	f.clusters = []Cluster{{Name: "Prod_EU", Labels: map[string]string{"tier": "prod"}}, {Name: "prod-eu", Labels: map[string]string{"tier": "prod"}}, {Name: "edge"}}
	d := NewDeployer(f.client(t))
	_, err := d.Resolve(context.Background(), deploy.Placement{Selector: map[string]string{"tier": "prod"}, Field: "placement"})
	var bad *InvalidInputError
	require.ErrorAs(t, err, &bad)
	require.Equal(t, "placement", bad.Field)
	require.Contains(t, bad.Reason, `"Prod_EU" and "prod-eu"`)
	got, err := d.Resolve(context.Background(), deploy.Placement{Clusters: []string{"edge", "prod-eu"}})
	require.NoError(t, err)
	require.Len(t, got, 2)
}

// A cluster the placement no longer picks is drained, then its Application goes, after the deploy
// reached the clusters it picks; going back to one cluster removes the rest.
func TestDeployUnplacesDrainedClusters(t *testing.T) {
	f := newFake(t)
	f.clusters = []Cluster{{Name: "in-cluster", Server: DefaultDestination}, {Name: "edge", Server: "https://10.0.0.2:6443"}}
	d := NewDeployer(f.client(t))
	app := testApp()
	app.Placement = deploy.Placement{Clusters: []string{"edge", "in-cluster"}}
	var drained []string
	app.Drain = func(_ context.Context, cluster string) error {
		drained = append(drained, cluster)
		return nil
	}
	_, err := d.Deploy(context.Background(), app, farDeadline())
	require.NoError(t, err)
	for _, name := range []string{"acme-web-edge", "acme-web-in-cluster"} {
		_, ok := f.app(name)
		require.True(t, ok, name)
	}
	require.Empty(t, drained, "nothing left the placement")

	app.Placement.Clusters = []string{"in-cluster"}
	st, err := d.Deploy(context.Background(), app, farDeadline())
	require.NoError(t, err)
	require.Equal(t, []string{"edge"}, drained)
	_, ok := f.app("acme-web-edge")
	require.False(t, ok, "the un-placed cluster's Application is gone")
	_, ok = f.app("acme-web-in-cluster")
	require.True(t, ok)
	require.Len(t, st.Clusters, 1)

	// A drain that fails keeps the app where it is and fails the deploy, naming the cluster.
	app.Placement.Clusters = []string{"edge"}
	_, err = d.Deploy(context.Background(), app, farDeadline())
	require.NoError(t, err)
	app.Placement = deploy.Placement{}
	app.Drain = func(context.Context, string) error { return errors.New("drain refused") }
	_, err = d.Deploy(context.Background(), app, farDeadline())
	var left *LeftOnClustersError
	require.ErrorAs(t, err, &left)
	require.Contains(t, err.Error(), "cluster edge: application acme-web-edge left: drain: drain refused")
	_, ok = f.app("acme-web-edge")
	require.True(t, ok)
}

// An app pointed at a revision while its cluster was down is marked behind; once the cluster
// answers, CatchUp prepares it and syncs it at that revision, and the mark goes. An app a
// deploy moved to another revision meanwhile is left alone.
func TestCatchUpSyncsAnAppLeftBehind(t *testing.T) {
	f := newFake(t)
	f.clusters = []Cluster{{Name: "in-cluster", Server: DefaultDestination}, {Name: "edge", Server: "https://10.0.0.2:6443"}}
	d := NewDeployer(f.client(t))
	app := testApp()
	app.Placement = deploy.Placement{Clusters: []string{"edge", "in-cluster"}}
	dd, sub, err := d.on(app, f.clusters[1])
	require.NoError(t, err)
	require.NoError(t, dd.pointAt(context.Background(), sub))
	a, ok := f.app("acme-web-edge")
	require.True(t, ok)
	require.Equal(t, testRev, a.Metadata.Labels[LabelBehind])
	st, err := d.Status(context.Background(), app)
	require.NoError(t, err)
	require.Equal(t, testRev, st.Clusters[0].Behind, "status says the cluster awaits that revision")

	other := app
	other.Revision = "0000000000000000000000000000000000000000"
	started, err := d.CatchUp(context.Background(), other, "edge")
	require.NoError(t, err)
	require.False(t, started, "not the revision it awaits")
	require.Empty(t, f.syncs)

	started, err = d.CatchUp(context.Background(), app, "edge")
	require.NoError(t, err)
	require.True(t, started)
	require.Len(t, f.syncs, 1)
	a, _ = f.app("acme-web-edge")
	require.Equal(t, testRev, a.Metadata.Labels[LabelBehind], "behind until seen synced")
	require.Eventually(t, func() bool {
		_, gerr := d.c.inProject(a.Spec.Project).GetApplication(context.Background(), "acme-web-edge") // the fake's controller steps on each GET
		require.NoError(t, gerr)
		started, err = d.CatchUp(context.Background(), app, "edge")
		require.NoError(t, err)
		require.False(t, started, "one sync is running or done")
		a, _ = f.app("acme-web-edge")
		return a.Metadata.Labels[LabelBehind] == ""
	}, 5*time.Second, 10*time.Millisecond, "caught up: no longer behind")
	require.Len(t, f.syncs, 1)
}
