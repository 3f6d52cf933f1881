package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGetApplication(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()

	// The project query turns argocd-server's 403 for a missing app into a 404.
	_, err := c.GetApplication(ctx, "acme-web")
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	require.Contains(t, err.Error(), `"acme-web" not found`)
	require.False(t, IsNonRetryable(err))

	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}, Spec: ApplicationSpec{Project: "default"},
		Status: ApplicationStatus{Sync: SyncStatus{Status: SyncSynced, Revision: testRev}, Health: HealthStatus{Status: HealthHealthy}}})
	a, err := c.GetApplication(ctx, "acme-web")
	require.NoError(t, err)
	require.Equal(t, SyncSynced, a.Status.Sync.Status)
	require.Equal(t, testRev, a.Status.Sync.Revision)
	require.Equal(t, HealthHealthy, a.Status.Health.Status)

	_, err = c.GetApplication(ctx, "")
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "application name", ie.Field)
}
