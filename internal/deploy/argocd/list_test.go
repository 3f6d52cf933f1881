package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestListReportsEachInstanceByLabels(t *testing.T) {
	f := newFake(t)
	d := NewDeployer(f.client(t))
	ctx := context.Background()

	got, err := d.List(ctx)
	require.NoError(t, err)
	require.Empty(t, got, "no applications: items is null")

	labels := map[string]string{LabelTenant: "a-b", LabelName: "c"}
	f.put(Application{Metadata: ObjectMeta{Name: "a-b-c--4e84717d75", Labels: labels}, Spec: ApplicationSpec{Project: "default"},
		Status: ApplicationStatus{Sync: SyncStatus{Status: SyncSynced}, Health: HealthStatus{Status: HealthDegraded},
			Resources: []ResourceStatus{{Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "app", Status: SyncSynced}}}})
	f.putAsIs(Application{Metadata: ObjectMeta{Name: "someone-else"}, Spec: ApplicationSpec{Project: "default"}})
	f.put(Application{Metadata: ObjectMeta{Name: "team-x", Labels: map[string]string{LabelTenant: "team", LabelName: "x"}}, Spec: ApplicationSpec{Project: "slipway-team"}})

	got, err = d.List(ctx)
	require.NoError(t, err)
	require.Len(t, got, 2, "slipway's labelled applications, in every project (each tenant has its own)")
	app := got["a-b/c"]
	require.True(t, app.Deployed)
	require.Equal(t, HealthDegraded, app.Health)
	require.Equal(t, "c", app.Resources[0].App)
	require.Equal(t, "Present", app.Resources[0].ClusterStatus)
	require.Equal(t, []string{"GET /api/v1/applications?selector=slipway.dev%2Ftenant%2Cslipway.dev%2Fname"},
		f.callList()[1:2], "one list call, scoped by label selector")
}

func TestConnectionNamesServerProjectAndDestinationNotToken(t *testing.T) {
	a, err := New("https://argocd.example:8443", "token-one")
	require.NoError(t, err)
	b, err := New("https://argocd.example:8443", "token-two")
	require.NoError(t, err)
	c, err := New("https://argocd.example:8443", "token-one", WithProject("team"))
	require.NoError(t, err)
	require.Equal(t, NewDeployer(a).Connection(), NewDeployer(b).Connection(), "the token does not name the connection")
	require.NotEqual(t, NewDeployer(a).Connection(), NewDeployer(c).Connection())
	require.Regexp(t, `^argocd-[0-9a-f]{10}$`, NewDeployer(a).Connection())
}

func TestDetailTakesHealthAndPresenceFromTheResourceTree(t *testing.T) {
	f := newFake(t)
	d := NewDeployer(f.client(t))
	labels := map[string]string{LabelTenant: "acme", LabelName: "web"}
	// ArgoCD 3 keeps no resource health in the status; the tree has it, and lacks what is gone.
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web", Labels: labels}, Spec: ApplicationSpec{Project: "default"},
		Status: ApplicationStatus{Sync: SyncStatus{Status: SyncOutOfSync}, Health: HealthStatus{Status: HealthDegraded},
			Resources: []ResourceStatus{
				{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "acme-web", Name: "web", Status: SyncOutOfSync,
					Health: &HealthStatus{Status: HealthDegraded, Message: "exceeded its progress deadline"}},
			}}})
	listed, err := d.List(context.Background())
	require.NoError(t, err)
	app := listed["acme/web"]
	app.Resources = append(app.Resources, contract.Resource{Version: "v1", Kind: "ConfigMap", Namespace: "acme-web", Name: "gone"})
	got, err := d.Detail(context.Background(), app)
	require.NoError(t, err)
	require.Equal(t, "Present", got.Resources[0].ClusterStatus)
	require.Equal(t, HealthDegraded, got.Resources[0].Health)
	require.Equal(t, "exceeded its progress deadline", got.Resources[0].Message)
	require.Equal(t, "NotPresent", got.Resources[1].ClusterStatus, "not in the live tree: not in the cluster")
	require.Empty(t, app.Resources[1].ClusterStatus, "the listed app is not changed in place")
	require.Equal(t, 1, f.count("GET /api/v1/applications/acme-web/resource-tree"))
}
