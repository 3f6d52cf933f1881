package argocd

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSyncSendsRevisionPruneAndProject(t *testing.T) {
	f := newFake(t)
	c := f.client(t, WithProject("team-a"))
	ctx := context.Background()
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}, Spec: ApplicationSpec{Project: "team-a"}})

	require.NoError(t, c.Sync(ctx, "acme-web", testRev, true))
	require.Equal(t, []syncRequest{{Name: "acme-web", Revision: testRev, Prune: true, Project: "team-a"}}, f.syncs)
	a, ok := f.app("acme-web")
	require.True(t, ok)
	require.Equal(t, testRev, a.Operation.Sync.Revision)

	// A second sync while the first is pending is refused the way argocd-server v3.2 does (400).
	err := c.Sync(ctx, "acme-web", testRev, true)
	var api *APIError
	require.ErrorAs(t, err, &api)
	require.Equal(t, http.StatusBadRequest, api.Status)
	require.Equal(t, 9, api.Code)
	require.True(t, operationInProgress(err))
}

func TestSyncMissingApp(t *testing.T) {
	f := newFake(t)
	err := f.client(t).Sync(context.Background(), "acme-web", testRev, true)
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	require.False(t, operationInProgress(err))
}

func TestSyncCarriesRecreateOptions(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}})
	require.NoError(t, c.Sync(context.Background(), "acme-web", testRev, true, RecreateOptions...))
	require.Equal(t, []syncRequest{{Name: "acme-web", Revision: testRev, Prune: true, Project: "default",
		SyncOptions: &syncOptions{Items: []string{"Replace=true", "Force=true"}},
		Strategy:    &syncStrategy{Apply: &syncStrategyApply{Force: true}}}}, f.syncs)
}
