package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

var renderFiles = map[string]string{
	"README.md": "stack docs are not rendered",
	"terraform/main.tf.tmpl": `resource "terraform_data" "x" {
  input = { ns = {{ quote .Namespace }}, greeting = {{ quote .Params.greeting }}, replicas = {{ .Params.replicas }} }
}
`,
	"terraform/versions.tf": "terraform {}\n{{ not a template }}\n",
	"manifests/app.yaml.tmpl": `# {{ .Stack }} {{ .Tenant }}/{{ .Name }}
{{- range $k, $v := .Params }}
{{ $k }}: {{ toJSON $v }}
{{- end }}
`,
}

func TestRender(t *testing.T) {
	st := testStack(t, renderFiles)
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	inst := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": `hi "there"`, "size": 2, "replicas": 3}}

	out, err := Render(ref, "acme-web", st, inst)
	require.NoError(t, err)
	assert.Equal(t, []string{"instance.yaml", "manifests/app.yaml", "terraform/main.tf", "terraform/versions.tf"}, sortedKeys(out))

	assert.Equal(t, `resource "terraform_data" "x" {
  input = { ns = "acme-web", greeting = "hi \"there\"", replicas = 3 }
}
`, string(out["terraform/main.tf"]))
	assert.Equal(t, "terraform {}\n{{ not a template }}\n", string(out["terraform/versions.tf"]), "files without .tmpl are copied")
	assert.Equal(t, `# demo acme/web
debug: false
greeting: "hi \"there\""
ratio: 0.5
region: "eu-west"
replicas: 3
size: 2
`, string(out["manifests/app.yaml"]))
	assert.Equal(t, `stack: demo
parameters:
  debug: false
  greeting: hi "there"
  ratio: 0.5
  region: eu-west
  replicas: 3
  size: 2
`, string(out[InstanceFile]), "instance.yaml holds the resolved config")

	again, err := Render(ref, "acme-web", st, &Instance{Stack: "demo", Parameters: map[string]any{"replicas": 3, "size": 2.0, "greeting": `hi "there"`}})
	require.NoError(t, err)
	assert.Equal(t, out, again, "equal config renders byte-identical output")

	back, err := ParseInstance(out[InstanceFile])
	require.NoError(t, err)
	fromRepo, err := Render(ref, "acme-web", st, back)
	require.NoError(t, err)
	assert.Equal(t, out, fromRepo, "re-rendering the committed instance.yaml changes nothing")
}

func TestRenderUsesTheGivenNamespace(t *testing.T) {
	st := testStack(t, map[string]string{"manifests/ns.yaml.tmpl": "{{ .Namespace }}"})
	ref := contract.Ref{Tenant: "a-b", Name: "c"}
	inst := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 1}}
	out, err := Render(ref, "a-b-c--0123456789", st, inst)
	require.NoError(t, err)
	assert.Equal(t, "a-b-c--0123456789", string(out["manifests/ns.yaml"]), "the recorded name, never recomputed")
	_, err = Render(ref, "A_B", st, inst)
	var ne *NamespaceError
	require.ErrorAs(t, err, &ne)
}

func TestRenderErrors(t *testing.T) {
	valid := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 1}}
	ref := contract.Ref{Tenant: "acme", Name: "web"}

	_, err := Render(contract.Ref{Tenant: "Acme", Name: "web"}, "acme-web", testStack(t, nil), valid)
	var re *contract.RefError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "tenant", re.Part)

	_, err = Render(ref, "acme-web", testStack(t, nil), &Instance{Stack: "demo", Parameters: map[string]any{"size": 1}})
	assertFieldErrors(t, err, []FieldError{{Field: "parameters.greeting", Message: "is required"}})

	tests := []struct {
		name, file, text, want string
	}{
		{"missing param", "manifests/a.yaml.tmpl", "{{ .Params.nope }}", `map has no entry for key "nope"`},
		{"missing field", "manifests/a.yaml.tmpl", "{{ .Nope }}", "can't evaluate field Nope"},
		{"backend block", "terraform/main.tf.tmpl", "terraform {\n  backend \"local\" {}\n}\n", "must not declare a backend or cloud block"},
		{"copied backend", "terraform/backend.tf", "terraform {\n  backend \"s3\" {\n  }\n}\n", "must not declare a backend or cloud block"},
		{"cloud block", "terraform/main.tf", "terraform {\n  cloud {\n  }\n}\n", "must not declare a backend or cloud block"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(ref, "acme-web", testStack(t, map[string]string{tt.file: tt.text}), valid)
			var se *StackError
			require.ErrorAs(t, err, &se)
			require.Len(t, se.Errors, 1)
			assert.Equal(t, tt.file, se.Errors[0].Field)
			assert.Contains(t, se.Errors[0].Message, tt.want)
		})
	}
}
