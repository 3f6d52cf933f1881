package deploy

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestNoneNeverClaimsHealthy(t *testing.T) {
	app := App{Ref: contract.Ref{Tenant: "acme", Name: "web"}, Objects: []Object{
		{APIVersion: "v1", Kind: "Namespace", Name: "acme-web"},
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "acme-web", Name: "web"},
	}}
	st, err := None{}.Deploy(context.Background(), app, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.False(t, st.Deployed)
	require.NotEqual(t, "Healthy", st.Health)
	require.Equal(t, "none", st.Deployer)
	require.Contains(t, st.Message, "deployer: none")
	require.Len(t, st.Resources, 2)
	for _, r := range st.Resources {
		require.Equal(t, "Pending", r.RsyncStatus)
		require.Equal(t, "Unknown", r.ClusterStatus)
	}
	require.Equal(t, "apps", st.Resources[1].Group)
	require.Equal(t, "v1", st.Resources[1].Version)
}
