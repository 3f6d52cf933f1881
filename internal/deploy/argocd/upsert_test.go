package argocd

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/deploy"
)

func TestCreateApplicationNeverUpserts(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()
	app := NewDeployer(c).desired(testApp())

	got, err := c.CreateApplication(ctx, app)
	require.NoError(t, err)
	require.Equal(t, "acme-web", got.Metadata.Name)
	require.Equal(t, []string{"upsert=false&validate=false"}, f.lastWriteQuery)

	app.Spec.Source.TargetRevision = "other"
	_, err = c.CreateApplication(ctx, app)
	require.True(t, isSpecDiffers(err), "a create over an existing app is refused, not applied: %v", err)
	a, _ := f.app("acme-web")
	require.Equal(t, testRev, a.Spec.Source.TargetRevision)
}

func TestCreateSendsNoStatusOrOperation(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	app := NewDeployer(c).desired(testApp())
	app.Status.Sync.Status = SyncSynced
	app.Operation = &Operation{Sync: &SyncOperation{Revision: "x"}}
	_, err := c.CreateApplication(context.Background(), app)
	require.NoError(t, err)
	require.Len(t, f.created, 1)
	require.Nil(t, f.created[0].Operation)
	require.Empty(t, f.created[0].Status.Sync.Status)
}

func TestUpdateApplication(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()
	app := NewDeployer(c).desired(testApp())

	_, err := c.UpdateApplication(ctx, app)
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf, "an update of a missing app is a 404")

	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}, Spec: ApplicationSpec{Project: "default"}})
	got, err := c.UpdateApplication(ctx, app)
	require.NoError(t, err)
	require.Equal(t, testRev, got.Spec.Source.TargetRevision)
	require.Contains(t, f.callList(), "PUT /api/v1/applications/acme-web?project=default&validate=false")
}

// The takeover of case 8: an Application made by hand under the name an instance derives is
// neither replaced by the deploy nor deleted by the remove; both fail naming it.
func TestDeployAndRemoveLeaveAnotherApplicationAlone(t *testing.T) {
	f := newFake(t)
	theirs := Application{Metadata: ObjectMeta{Name: "acme-web", Labels: map[string]string{"team": "platform"}},
		Spec: ApplicationSpec{Project: "default", Source: &ApplicationSource{RepoURL: "https://git.example.com/platform", Path: "core"}}}
	f.putAsIs(theirs)
	d := NewDeployer(f.client(t))

	_, err := d.Deploy(context.Background(), testApp(), farDeadline())
	var no *deploy.NotOwnedError
	require.ErrorAs(t, err, &no)
	require.Equal(t, "ArgoCD application acme-web exists and was not created by slipway for acme/web (it carries no slipway ownership labels): left untouched", err.Error())
	require.True(t, IsNonRetryable(err))
	_, err = d.Remove(context.Background(), testApp())
	require.ErrorAs(t, err, &no)
	_, err = d.Status(context.Background(), testApp())
	require.ErrorAs(t, err, &no)

	got, ok := f.app("acme-web")
	require.True(t, ok, "not deleted")
	require.Equal(t, theirs.Spec, got.Spec, "not replaced")
	require.Empty(t, f.created)
	require.Empty(t, f.puts)
	require.Zero(t, f.count("DELETE "))
	require.Empty(t, f.syncs)
	_, made := f.project(ProjectName("acme"))
	require.False(t, made, "refused before anything changed")

	// Another instance's app (a-b/c and a/b-c shared names under the legacy rule) is not ours either.
	f.putAsIs(Application{Metadata: ObjectMeta{Name: "acme-web", Labels: map[string]string{LabelTenant: "acme", LabelName: "web2"}}})
	_, err = d.Deploy(context.Background(), testApp(), farDeadline())
	require.ErrorContains(t, err, "(it belongs to acme/web2)")
}

// Each tenant's apps go to its own project, which lists exactly its instances' namespaces and
// takes sources only from the GitOps repository; removing an instance takes its namespace out.
func TestTenantProjectListsOnlyItsInstancesNamespaces(t *testing.T) {
	f := newFake(t)
	d := NewDeployer(f.client(t))
	ctx := context.Background()
	web, api, other := testApp(), testApp(), testApp()
	api.Ref.Name, api.Namespace, api.Application = "api", "acme-api", "acme-api"
	other.Ref.Tenant, other.Namespace, other.Application = "zeta", "zeta-web", "zeta-web"
	f.projectRaces = 2  // a concurrent deploy of the same tenant wins twice
	f.staleProjects = 2 // argocd-server's cached project lags the destination just added
	for _, app := range []deploy.App{web, api, other} {
		_, err := d.Deploy(ctx, app, farDeadline())
		require.NoError(t, err, app.Ref.String())
	}
	p, ok := f.project("slipway-acme")
	require.True(t, ok)
	require.Equal(t, map[string]string{LabelManagedBy: ManagedBy, LabelTenant: "acme"}, p.Metadata.Labels)
	require.Equal(t, []string{"file:///srv/gitops"}, p.Spec.SourceRepos)
	require.Equal(t, []ApplicationDestination{{Server: DefaultDestination, Namespace: "acme-web"}, {Server: DefaultDestination, Namespace: "acme-api"}}, p.Spec.Destinations)
	z, _ := f.project("slipway-zeta")
	require.Equal(t, []ApplicationDestination{{Server: DefaultDestination, Namespace: "zeta-web"}}, z.Spec.Destinations)
	a, _ := f.app("acme-api")
	require.Equal(t, "slipway-acme", a.Spec.Project)

	_, err := d.Remove(ctx, web)
	require.NoError(t, err)
	p, _ = f.project("slipway-acme")
	require.Equal(t, []ApplicationDestination{{Server: DefaultDestination, Namespace: "acme-api"}}, p.Spec.Destinations)

	// A project of that name that slipway did not make is not used.
	f.projects["slipway-mallory"] = &AppProject{Metadata: ObjectMeta{Name: "slipway-mallory"},
		Spec: AppProjectSpec{Destinations: []ApplicationDestination{{Server: "*", Namespace: "*"}}}}
	mal := testApp()
	mal.Ref.Tenant, mal.Namespace, mal.Application = "mallory", "mallory-web", "mallory-web"
	_, err = d.Deploy(ctx, mal, farDeadline())
	require.ErrorContains(t, err, "ArgoCD project slipway-mallory exists and was not created by slipway for mallory/web")
	_, made := f.app("mallory-web")
	require.False(t, made)
}

// An app slipway made before tenants had projects is moved into the tenant's project by its
// next deploy: the update names the project it is in, the body the new one.
func TestDeployMovesALegacyAppIntoTheTenantProject(t *testing.T) {
	f := newFake(t)
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}, Spec: ApplicationSpec{Project: "default"}})
	d := NewDeployer(f.client(t))
	st, err := d.Deploy(context.Background(), testApp(), farDeadline())
	require.NoError(t, err)
	require.Equal(t, HealthHealthy, st.Health)
	require.Contains(t, f.callList(), "PUT /api/v1/applications/acme-web?project=default&validate=false")
	a, _ := f.app("acme-web")
	require.Equal(t, "slipway-acme", a.Spec.Project)
	require.Nil(t, a.Spec.SyncPolicy, "no CreateNamespace: the project permits no cluster-scoped kind")
}

// An update writes slipway's fields into the application as it is and keeps the operator's.
func TestSetOwnFieldsKeepsTheRest(t *testing.T) {
	obj, err := decodeObject([]byte(`{
	  "metadata": {"name": "acme-web", "resourceVersion": "42", "generation": 9007199254740993,
	    "labels": {"team": "platform", "slipway.dev/tenant": "old"},
	    "annotations": {"notifications.argoproj.io/subscribe.on-sync-failed.slack": "ops"},
	    "finalizers": ["example.com/keep"]},
	  "spec": {"project": "default",
	    "source": {"repoURL": "https://old.example/x.git", "path": "old", "targetRevision": "old", "directory": {"recurse": true}},
	    "sources": [{"repoURL": "https://other.example/y.git"}],
	    "destination": {"name": "in-cluster", "namespace": "old"},
	    "ignoreDifferences": [{"kind": "ConfigMap", "jsonPointers": ["/data/replicas"]}],
	    "syncPolicy": {"syncOptions": ["RespectIgnoreDifferences=true"]}},
	  "status": {"sync": {"status": "Synced"}},
	  "operation": {"sync": {"revision": "x"}}}`))
	require.NoError(t, err)
	want := NewDeployer(newFake(t).client(t)).desired(testApp())
	setOwnFields(obj, want)
	got, err := json.Marshal(obj)
	require.NoError(t, err)
	require.JSONEq(t, `{
	  "metadata": {"name": "acme-web", "resourceVersion": "42", "generation": 9007199254740993,
	    "labels": {"team": "platform", "slipway.dev/tenant": "acme", "slipway.dev/name": "web"},
	    "annotations": {"notifications.argoproj.io/subscribe.on-sync-failed.slack": "ops"},
	    "finalizers": ["example.com/keep", "resources-finalizer.argocd.argoproj.io"]},
	  "spec": {"project": "slipway-acme",
	    "source": {"repoURL": "`+want.Spec.Source.RepoURL+`", "path": "`+want.Spec.Source.Path+`", "targetRevision": "`+testRev+`", "directory": {"recurse": true}},
	    "destination": {"server": "https://kubernetes.default.svc", "namespace": "`+want.Spec.Destination.Namespace+`"},
	    "ignoreDifferences": [{"kind": "ConfigMap", "jsonPointers": ["/data/replicas"]}],
	    "syncPolicy": {"syncOptions": ["RespectIgnoreDifferences=true"]}}}`, string(got))
}
