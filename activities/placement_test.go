package activities

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/deploy"
)

// An instance's placement replaces its stack's, and errors name the field that set it;
// without either the stack's argocd: destination is kept.
func TestPlaceOnPrefersTheInstance(t *testing.T) {
	stack := config.Placement{Selector: map[string]string{"tier": "edge"}}
	inst := config.Placement{Clusters: []string{"in-cluster"}}

	p := deploy.Placement{Project: "platform-apps", Cluster: "prod-eu"}
	placeOn(&p, stack, inst)
	require.Equal(t, deploy.Placement{Project: "platform-apps", Cluster: "prod-eu", Clusters: []string{"in-cluster"}, Field: "placement"}, p)

	p = deploy.Placement{}
	placeOn(&p, stack, config.Placement{})
	require.Equal(t, deploy.Placement{Selector: map[string]string{"tier": "edge"}, Field: "schema.placement"}, p)
	require.True(t, p.Several())

	p = deploy.Placement{Cluster: "prod-eu"}
	placeOn(&p, config.Placement{}, config.Placement{})
	require.Equal(t, deploy.Placement{Cluster: "prod-eu"}, p)
	require.False(t, p.Several(), "the single-cluster path")
}
