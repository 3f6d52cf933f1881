package argocd

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestDeployReachesSyncedHealthyAtRevision(t *testing.T) {
	f := newFake(t)
	f.stepsToFinish = 4
	d := NewDeployer(f.client(t))

	st, err := d.Deploy(context.Background(), testApp(), farDeadline())
	require.NoError(t, err)
	require.Equal(t, "argocd", st.Deployer)
	require.True(t, st.Deployed)
	require.Equal(t, SyncSynced, st.Sync)
	require.Equal(t, HealthHealthy, st.Health)
	require.Contains(t, st.Message, "successfully synced")
	require.GreaterOrEqual(t, f.count("GET /api/v1/applications/acme-web?"), 4, "it polled until the controller finished")

	require.Equal(t, []contract.Resource{
		{App: "web", Cluster: "in-cluster", Version: "v1", Kind: "Namespace", Name: "acme-web",
			RsyncStatus: "Applied", ClusterStatus: "Present", Health: HealthHealthy},
		{App: "web", Cluster: "in-cluster", Version: "v1", Kind: "ConfigMap", Namespace: "acme-web", Name: "web",
			RsyncStatus: "Applied", ClusterStatus: "Present", Health: HealthHealthy},
	}, st.Resources)

	// What ArgoCD was asked for.
	a, ok := f.app("acme-web")
	require.True(t, ok)
	require.Equal(t, map[string]string{LabelTenant: "acme", LabelName: "web"}, a.Metadata.Labels)
	require.Equal(t, []string{Finalizer}, a.Metadata.Finalizers)
	require.Equal(t, "slipway-acme", a.Spec.Project, "the tenant's own project")
	require.Equal(t, ApplicationSource{RepoURL: "file:///srv/gitops", Path: "instances/acme/web/manifests", TargetRevision: testRev}, *a.Spec.Source)
	require.Equal(t, ApplicationDestination{Server: DefaultDestination, Namespace: "acme-web"}, a.Spec.Destination)
	require.Nil(t, a.Spec.SyncPolicy, "no CreateNamespace: the project permits no cluster-scoped kind")
	require.Equal(t, []syncRequest{{Name: "acme-web", Revision: testRev, Prune: true, Project: "slipway-acme"}}, f.syncs)
	require.Equal(t, 0, f.terminated)
}

func TestDeployIsIdempotent(t *testing.T) {
	f := newFake(t)
	d := NewDeployer(f.client(t))
	for range 2 {
		st, err := d.Deploy(context.Background(), testApp(), farDeadline())
		require.NoError(t, err)
		require.Equal(t, HealthHealthy, st.Health)
	}
	require.Len(t, f.syncs, 2)
}

func TestDeployUpdatesItsOwnAppInPlace(t *testing.T) {
	f := newFake(t)
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}, Spec: ApplicationSpec{Project: "default",
		Source: &ApplicationSource{RepoURL: "file:///srv/gitops", Path: "instances/acme/web/manifests", TargetRevision: "old"}}})
	d := NewDeployer(f.client(t))

	st, err := d.Deploy(context.Background(), testApp(), farDeadline())
	require.NoError(t, err)
	require.Equal(t, HealthHealthy, st.Health)
	require.Empty(t, f.created, "never a create over an existing app")
	require.Len(t, f.puts, 1, "an update of the instance's own app")
	a, _ := f.app("acme-web")
	require.Equal(t, testRev, a.Spec.Source.TargetRevision)
	require.Equal(t, []string{Finalizer}, a.Metadata.Finalizers)
}

func TestDeployWaitsForSyncAlreadyRunning(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusConflict} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			f := newFake(t)
			f.inProgressStatus = status
			f.stepsToFinish = 3
			// An earlier attempt started the sync of the same revision.
			f.put(Application{Metadata: ObjectMeta{Name: "acme-web"},
				Operation: &Operation{Sync: &SyncOperation{Revision: testRev, Prune: true}}})
			d := NewDeployer(f.client(t))

			st, err := d.Deploy(context.Background(), testApp(), farDeadline())
			require.NoError(t, err)
			require.Equal(t, SyncSynced, st.Sync)
			require.Equal(t, HealthHealthy, st.Health)
			require.Len(t, f.syncs, 1, "it waited for the running sync instead of asking again")
			require.Equal(t, 0, f.terminated)
		})
	}
}

func TestDeployWaitsOutOtherRevisionThenSyncs(t *testing.T) {
	f := newFake(t)
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"},
		Operation: &Operation{Sync: &SyncOperation{Revision: "0ld0ld", Prune: true}}})
	d := NewDeployer(f.client(t))

	st, err := d.Deploy(context.Background(), testApp(), farDeadline())
	require.NoError(t, err)
	require.Equal(t, HealthHealthy, st.Health)
	// The fake controller finishes the old sync on its second read: two refusals, then ours.
	require.Len(t, f.syncs, 3)
	a, _ := f.app("acme-web")
	require.Equal(t, testRev, a.Status.Sync.Revision)
	require.Equal(t, testRev, a.Status.OperationState.SyncResult.Revision)
}

func TestDeployTimeoutTerminatesAndReportsResources(t *testing.T) {
	f := newFake(t)
	f.mode = hang
	d := NewDeployer(f.client(t))
	deadline := time.Now().Add(50 * time.Millisecond)

	st, err := d.Deploy(context.Background(), testApp(), deadline)
	var te *TimeoutError
	require.ErrorAs(t, err, &te)
	require.True(t, IsNonRetryable(err))
	require.Equal(t, 1, f.terminated, "the running operation was terminated")
	require.Contains(t, f.callList(), "DELETE /api/v1/applications/acme-web/operation?project=slipway-acme")
	require.NoError(t, te.TerminateErr)
	require.Equal(t, "acme-web", te.App)
	require.Equal(t, testRev, te.Revision)
	require.Equal(t, PhaseRunning, te.Phase)
	require.Equal(t, "Progressing", te.Health)
	require.Equal(t, []string{"SyncError: waiting for healthy state of apps/Deployment/web"}, te.Conditions)
	require.Len(t, te.Resources, 3)
	dep := te.Resources[2]
	require.Equal(t, contract.Resource{App: "web", Cluster: "in-cluster", Group: "apps", Version: "v1", Kind: "Deployment",
		Namespace: "acme-web", Name: "web", RsyncStatus: "Applied", ClusterStatus: "Present", Health: "Progressing",
		Message: "Waiting for rollout to finish: 0 of 1 updated replicas are available..."}, dep)
	require.Equal(t, "Retrying", te.Resources[1].RsyncStatus, "not yet applied while the operation runs")
	require.Equal(t, "NotPresent", te.Resources[1].ClusterStatus)
	require.Contains(t, err.Error(), "Deployment acme-web/web: Applied/Progressing: Waiting for rollout")
	require.Contains(t, err.Error(), "waiting for healthy state")
	require.True(t, st.Deployed)
	require.Len(t, st.Resources, 3)
}

func TestDeploySyncFailedCarriesArgoCDMessage(t *testing.T) {
	f := newFake(t)
	f.mode = failSync
	d := NewDeployer(f.client(t))

	st, err := d.Deploy(context.Background(), testApp(), farDeadline())
	var se *SyncFailedError
	require.ErrorAs(t, err, &se)
	require.True(t, IsNonRetryable(err))
	require.Equal(t, PhaseFailed, se.Phase)
	require.Contains(t, se.Message, `one or more objects failed to apply, reason: configmaps "web" is forbidden`)
	require.Contains(t, se.Message, "SyncError: Failed sync attempt to "+testRev)
	require.Contains(t, se.Message, `ConfigMap acme-web/web: Failed/Missing: configmaps "web" is forbidden`)
	require.Equal(t, 0, f.terminated, "a finished operation is not terminated")
	require.Equal(t, "Failed", st.Resources[1].RsyncStatus)
	require.Equal(t, "Applied", st.Resources[0].RsyncStatus)
}

func TestDeployDegradedFailsFast(t *testing.T) {
	f := newFake(t)
	f.mode = degrade
	_, err := NewDeployer(f.client(t)).Deploy(context.Background(), testApp(), farDeadline())
	var se *SyncFailedError
	require.ErrorAs(t, err, &se)
	require.Equal(t, HealthDegraded, se.Health)
	require.Contains(t, se.Message, "health: ConfigMap is bad")
}

func TestDeployIgnoresStaleResultOfEarlierSync(t *testing.T) {
	f := newFake(t)
	// The last sync (of an older revision) failed; ours must not be judged by it.
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}, Status: ApplicationStatus{
		Sync: SyncStatus{Status: SyncOutOfSync, Revision: "0ld0ld"},
		OperationState: &OperationState{Phase: PhaseFailed, Message: "old failure",
			Operation: Operation{Sync: &SyncOperation{Revision: "0ld0ld"}}, SyncResult: &SyncOperationResult{Revision: "0ld0ld"}}}})
	st, err := NewDeployer(f.client(t)).Deploy(context.Background(), testApp(), farDeadline())
	require.NoError(t, err)
	require.Equal(t, HealthHealthy, st.Health)
}

func TestDeployBadInputNamesField(t *testing.T) {
	f := newFake(t)
	app := testApp()
	app.Revision = ""
	_, err := NewDeployer(f.client(t)).Deploy(context.Background(), app, farDeadline())
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "app.Revision", ie.Field)
	require.True(t, IsNonRetryable(err))
	require.Empty(t, f.callList(), "bad input reaches no server")
}

func TestDeployHeartbeatsInsideAnActivity(t *testing.T) {
	f := newFake(t)
	f.stepsToFinish = 3
	d := NewDeployer(f.client(t))
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	var beats []string
	env.SetOnActivityHeartbeatListener(func(_ *activity.Info, details converter.EncodedValues) {
		var msg string
		if details.HasValues() && details.Get(&msg) == nil {
			beats = append(beats, msg)
		}
	})
	env.RegisterActivityWithOptions(func(ctx context.Context) (contract.AppStatus, error) {
		return d.Deploy(ctx, testApp(), farDeadline())
	}, activity.RegisterOptions{Name: "DeployApp"})

	val, err := env.ExecuteActivity("DeployApp")
	require.NoError(t, err)
	var st contract.AppStatus
	require.NoError(t, val.Get(&st))
	require.Equal(t, HealthHealthy, st.Health)
	require.NotEmpty(t, beats)
	require.Contains(t, beats[0], "argocd acme-web: phase")
}
