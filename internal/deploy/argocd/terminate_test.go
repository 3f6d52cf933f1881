package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTerminateOperation(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()

	require.NoError(t, c.TerminateOperation(ctx, "acme-web"), "a missing app has nothing running")

	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}})
	require.NoError(t, c.TerminateOperation(ctx, "acme-web"), "no operation in progress is success")
	require.Equal(t, 0, f.terminated)

	f.mode = hang
	require.NoError(t, c.Sync(ctx, "acme-web", testRev, true))
	_, err := c.GetApplication(ctx, "acme-web")
	require.NoError(t, err)
	require.NoError(t, c.TerminateOperation(ctx, "acme-web"))
	require.Equal(t, 1, f.terminated)
	a, _ := f.app("acme-web")
	require.Nil(t, a.Operation)
	require.Equal(t, "Operation terminated", a.Status.OperationState.Message)
}
