package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/contract"
)

const outputsTF = "output \"db_host\" {\n  value = \"db.internal\"\n}\n\noutput \"db_password\" {\n  value     = \"x\"\n  sensitive = true\n}\n"

const outputsManifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  host: {{ .Outputs.db_host }}\n"

func TestRenderWithOutputs(t *testing.T) {
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	inst := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 2}}
	st := testStack(t, map[string]string{"terraform/main.tf": outputsTF, "manifests/cm.yaml.tmpl": outputsManifest,
		"manifests/plain.yaml": "kind: ConfigMap\n"})
	assert.Equal(t, []string{"manifests/cm.yaml"}, OutputManifests(st))

	// At the MR of a first deploy no apply has given a value: the declared output renders empty.
	out, err := Render(ref, "acme-web", st, inst)
	require.NoError(t, err)
	assert.Contains(t, string(out["manifests/cm.yaml"]), "host: \"\"\n")
	assert.Equal(t, "{}\n", string(out[OutputsFile]))

	outputs := map[string]string{"db_host": "db.acme.internal", "db_password": SensitiveOutput}
	out, err = RenderWithOutputs(ref, "acme-web", st, inst, outputs)
	require.NoError(t, err)
	assert.Contains(t, string(out["manifests/cm.yaml"]), "host: \"db.acme.internal\"\n")
	back, err := ParseOutputsFile(out[OutputsFile])
	require.NoError(t, err)
	assert.Equal(t, outputs, back, "the file records the values (sensitive ones by name only) the manifests were rendered with")
	again, err := RenderWithOutputs(ref, "acme-web", st, inst, back)
	require.NoError(t, err)
	assert.Equal(t, out, again, "rendering from the recorded outputs is byte-identical: no churn commit")

	plain := testStack(t, map[string]string{"terraform/main.tf": outputsTF, "manifests/plain.yaml": "kind: ConfigMap\n"})
	out, err = RenderWithOutputs(ref, "acme-web", plain, inst, outputs)
	require.NoError(t, err)
	assert.NotContains(t, out, OutputsFile, "a stack whose manifests use no output renders as before")
}

// An output value is tenant-controlled: one that tries to add a document or a key to the
// manifest stays one string value of the key it was written to.
func TestRenderOutputsInjectionContained(t *testing.T) {
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	inst := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 2}}
	st := testStack(t, map[string]string{"terraform/main.tf": outputsTF, "manifests/cm.yaml.tmpl": outputsManifest})
	evil := "x\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: pwned\n"
	for _, v := range []string{evil, "x\n  admin: \"true\"", "'\"\n}{", "{{ .Params.greeting }}"} {
		out, err := RenderWithOutputs(ref, "acme-web", st, inst, map[string]string{"db_host": v})
		require.NoError(t, err)
		objs, err := ManifestObjects(out)
		require.NoError(t, err)
		require.Equal(t, []Object{{APIVersion: "v1", Kind: "ConfigMap", Name: "app"}}, objs, "%q", v)
		var cm struct{ Data map[string]string }
		require.NoError(t, yaml.Unmarshal(out["manifests/cm.yaml"], &cm))
		assert.Equal(t, map[string]string{"host": v}, cm.Data, "the value stays one value of its key")
	}
}

func TestRenderOutputsRefused(t *testing.T) {
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	inst := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 2}}
	// Refused when the stack is loaded, before anything changes.
	for _, tc := range []struct {
		files map[string]string
		msg   string
	}{
		{map[string]string{"terraform/main.tf": outputsTF, "manifests/cm.yaml.tmpl": "a: {{ .Outputs.db_hots }}\n"},
			`manifests/cm.yaml.tmpl: .Outputs.db_hots: the stack's terraform declares no output "db_hots"`},
		{map[string]string{"terraform/main.tf.tmpl": outputsTF + "# {{ .Outputs.db_host }}\n"},
			"terraform/main.tf.tmpl: .Outputs is only for templates under manifests/"},
		// A shell script is code: no tenant value, outputs included, is written into it.
		{map[string]string{"terraform/run.sh.tmpl": "echo {{ .Outputs.db_host }}\n"}, ".Outputs.db_host is a tenant value"},
	} {
		files := map[string][]byte{SchemaFile: []byte(testSchema)}
		for p, c := range tc.files {
			files[p] = []byte(c)
		}
		_, err := LoadStack("demo", files)
		require.ErrorContains(t, err, tc.msg)
	}
	// A sensitive output is known as such only from an apply's outputs: refused at that render.
	st := testStack(t, map[string]string{"terraform/main.tf": outputsTF, "manifests/cm.yaml.tmpl": "a: {{ .Outputs.db_password }}\n"})
	_, err := RenderWithOutputs(ref, "acme-web", st, inst, map[string]string{"db_host": "h", "db_password": SensitiveOutput})
	require.ErrorContains(t, err, "manifests/cm.yaml.tmpl: .Outputs.db_password is a sensitive output")
}
