package argocd

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestResourceTree(t *testing.T) {
	f := newFake(t)
	c := f.client(t)
	ctx := context.Background()

	_, err := c.ResourceTree(ctx, "acme-web")
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)

	_, err = NewDeployer(c).Deploy(ctx, testApp(), farDeadline())
	require.NoError(t, err)
	tree, err := c.inProject("slipway-acme").ResourceTree(ctx, "acme-web")
	require.NoError(t, err)
	require.Len(t, tree.Nodes, 2)
	require.Equal(t, "ConfigMap", tree.Nodes[1].Kind)
	require.Equal(t, "uid-configmap", tree.Nodes[1].UID)
	require.Equal(t, HealthHealthy, tree.Nodes[1].Health.Status)
}
