package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRemoveWaitsUntilGone(t *testing.T) {
	f := newFake(t)
	f.deleteSteps = 3
	d := NewDeployer(f.client(t))
	_, err := d.Deploy(context.Background(), testApp(), farDeadline())
	require.NoError(t, err)
	getsBefore := f.count("GET /api/v1/applications/acme-web?")

	st, err := d.Remove(context.Background(), testApp())
	require.NoError(t, err)
	require.Equal(t, "argocd", st.Deployer)
	require.False(t, st.Deployed)
	require.Equal(t, RemovedMessage, st.Message)
	_, ok := f.app("acme-web")
	require.False(t, ok)
	require.Equal(t, 4, f.count("GET /api/v1/applications/acme-web?")-getsBefore, "three GETs while the finalizer ran, then the 404")
	require.Contains(t, f.callList(), "DELETE /api/v1/applications/acme-web?cascade=true&project=slipway-acme")
}

func TestRemoveOfMissingAppSucceeds(t *testing.T) {
	f := newFake(t)
	st, err := NewDeployer(f.client(t)).Remove(context.Background(), testApp())
	require.NoError(t, err)
	require.False(t, st.Deployed)
	require.Equal(t, RemovedMessage, st.Message)
}

func TestRemoveStopsWithContext(t *testing.T) {
	f := newFake(t)
	f.deleteSteps = 1 << 30 // a finalizer that never finishes
	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewDeployer(f.client(t)).Remove(ctx, testApp())
	require.ErrorIs(t, err, context.Canceled)
}
