package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestManifestObjects(t *testing.T) {
	files := toBytes(map[string]string{
		"instance.yaml":     "stack: x\n",
		"terraform/main.tf": "kind: NotAManifest\n",
		"manifests/README":  "not yaml",
		"manifests/b.yaml": `---
apiVersion: v1
kind: Namespace
metadata: {name: acme-web}
---
# only a comment
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: app
  namespace: acme-web
`,
		"manifests/a.json": `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}`,
		"manifests/list.yml": `apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: Secret, metadata: {name: s1, namespace: n}}
  - {apiVersion: v1, kind: Service, metadata: {name: s2}}
`,
	})
	objs, err := ManifestObjects(files)
	require.NoError(t, err)
	assert.Equal(t, []Object{
		{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"},
		{APIVersion: "v1", Kind: "Namespace", Name: "acme-web"},
		{APIVersion: "v1", Kind: "ConfigMap", Name: "app", Namespace: "acme-web"},
		{APIVersion: "v1", Kind: "Secret", Name: "s1", Namespace: "n"},
		{APIVersion: "v1", Kind: "Service", Name: "s2"},
	}, objs)

	none, err := ManifestObjects(nil)
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestManifestObjectsErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"no kind", "apiVersion: v1\nmetadata: {name: a}\n", "manifests/m.yaml: document 1: kind: is required and must be a string"},
		{"no apiVersion", "kind: A\nmetadata: {name: a}\n", "manifests/m.yaml: document 1: apiVersion: is required"},
		{"no name in second doc", "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\napiVersion: v1\nkind: B\n", "manifests/m.yaml: document 2: metadata.name: is required"},
		{"namespace not a string", "apiVersion: v1\nkind: A\nmetadata: {name: a, namespace: 3}\n", "document 1: metadata.namespace: is required and must be a string"},
		{"list item bad", "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: A}]\n", "document 1: items[0].metadata.name: is required"},
		{"not a mapping", "- a\n- b\n", "manifests/m.yaml: document 1: "},
		{"syntax", "kind: A\na: b: c\n", "manifests/m.yaml: document 1: line 2: mapping values are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ManifestObjects(toBytes(map[string]string{"manifests/m.yaml": tt.text}))
			var me *ManifestError
			require.ErrorAs(t, err, &me)
			assert.Equal(t, "manifests/m.yaml", me.File)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
