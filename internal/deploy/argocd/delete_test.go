package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeleteApplication(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()

	require.NoError(t, c.DeleteApplication(ctx, "acme-web", true), "already gone is success")

	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}})
	require.NoError(t, c.DeleteApplication(ctx, "acme-web", true))
	require.Contains(t, f.callList(), "DELETE /api/v1/applications/acme-web?cascade=true&project=default")
	a, ok := f.app("acme-web")
	require.True(t, ok, "the finalizer keeps it until its resources are gone")
	require.NotEmpty(t, a.Metadata.DeletionTimestamp)
}
