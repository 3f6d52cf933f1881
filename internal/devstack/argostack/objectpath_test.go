package argostack

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestObjectPath(t *testing.T) {
	cases := []struct {
		doc  map[string]any
		want string
	}{
		{map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "a"}}, "/api/v1/namespaces/a"},
		{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "n"}}, "/api/v1/namespaces/n/configmaps/c"},
		{map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "AppProject", "metadata": map[string]any{"name": "default", "namespace": "argocd"}},
			"/apis/argoproj.io/v1alpha1/namespaces/argocd/appprojects/default"},
		{map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": map[string]any{"name": "p", "namespace": "n"}},
			"/apis/networking.k8s.io/v1/namespaces/n/networkpolicies/p"},
		{map[string]any{"apiVersion": "v1", "kind": "Endpoints", "metadata": map[string]any{"name": "e", "namespace": "n"}}, "/api/v1/namespaces/n/endpoints/e"},
		{map[string]any{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": map[string]any{"name": "s"}}, "/apis/storage.k8s.io/v1/storageclasses/s"},
	}
	for _, c := range cases {
		got, err := objectPath(0, c.doc)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
}

func TestObjectPathNamesTheBadField(t *testing.T) {
	cases := map[string]map[string]any{
		"apiVersion":         {"kind": "ConfigMap", "metadata": map[string]any{"name": "c"}},
		"kind":               {"apiVersion": "v1", "metadata": map[string]any{"name": "c"}},
		"metadata.name":      {"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "n"}},
		"metadata.namespace": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": 3}},
	}
	for field, doc := range cases {
		_, err := objectPath(2, doc)
		var me *ManifestError
		require.ErrorAs(t, err, &me, field)
		assert.Equal(t, field, me.Field)
		assert.Equal(t, 2, me.Doc)
		assert.Contains(t, err.Error(), "field "+field)
	}
}
