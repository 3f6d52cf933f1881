package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadStack(t *testing.T) {
	files := map[string][]byte{
		SchemaFile:                 []byte(testSchema),
		"README.md":                []byte("not rendered"),
		"terraform/main.tf.tmpl":   []byte(`# {{ .Name }}`),
		"terraform/versions.tf":    []byte("terraform {}\n"),
		"manifests/app.yaml.tmpl":  []byte("kind: {{ .Stack }}\n"),
		"manifests/sub/extra.yaml": []byte("kind: X\n"),
	}
	st, err := LoadStack("demo", files)
	require.NoError(t, err)
	assert.Equal(t, "demo", st.Name)
	assert.Len(t, st.Schema.Parameters, 6)
	assert.Equal(t, []string{"manifests/app.yaml.tmpl", "manifests/sub/extra.yaml", "terraform/main.tf.tmpl", "terraform/versions.tf"}, sortedKeys(st.Files))
	assert.Equal(t, "stacks/demo", StackDir("demo"))
}

func TestLoadStackErrors(t *testing.T) {
	schema := []byte(testSchema)
	tests := []struct {
		name      string
		stack     string
		files     map[string][]byte
		wantStack bool // *StackError rather than *ValidationError
		want      []FieldError
	}{
		{name: "unknown stack", stack: "x", files: map[string][]byte{},
			want: []FieldError{{Field: "stack", Message: `unknown stack "x" (nothing under stacks/x/)`}}},
		{name: "nil files", stack: "x", files: nil,
			want: []FieldError{{Field: "stack", Message: `unknown stack "x"`}}},
		{name: "bad stack name", stack: "../x", files: map[string][]byte{SchemaFile: schema},
			want: []FieldError{{Field: "stack", Message: `"../x" must be a DNS-1123 label`}}},
		{name: "missing schema", stack: "demo", wantStack: true, files: map[string][]byte{"terraform/main.tf": nil},
			want: []FieldError{{Field: "schema.yaml", Message: "is missing from stacks/demo/"}}},
		{name: "bad schema", stack: "demo", wantStack: true, files: map[string][]byte{SchemaFile: []byte("parameters:\n  - {name: a, type: float, default: 1}\n")},
			want: []FieldError{{Field: "schema.parameters[0].type", Message: `unknown type "float"`}}},
		{name: "template syntax", stack: "demo", wantStack: true, files: map[string][]byte{SchemaFile: schema, "terraform/main.tf.tmpl": []byte("{{ .Name ")},
			want: []FieldError{{Field: "terraform/main.tf.tmpl", Message: "unclosed action"}}},
		{name: "unknown function", stack: "demo", wantStack: true, files: map[string][]byte{SchemaFile: schema, "manifests/a.yaml.tmpl": []byte("{{ nope .Name }}")},
			want: []FieldError{{Field: "manifests/a.yaml.tmpl", Message: `function "nope" not defined`}}},
		{name: "two files render to one path", stack: "demo", wantStack: true, files: map[string][]byte{SchemaFile: schema, "terraform/main.tf": nil, "terraform/main.tf.tmpl": nil},
			want: []FieldError{{Field: "terraform/main.tf.tmpl", Message: "renders to terraform/main.tf, as terraform/main.tf does"}}},
		{name: "unclean path", stack: "demo", wantStack: true, files: map[string][]byte{SchemaFile: schema, "terraform/../../x.tf": nil},
			want: []FieldError{{Field: "terraform/../../x.tf", Message: "is not a clean relative path"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := LoadStack(tt.stack, tt.files)
			assert.Nil(t, st)
			if !tt.wantStack {
				assertFieldErrors(t, err, tt.want)
				return
			}
			var se *StackError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.stack, se.Stack)
			require.Len(t, se.Errors, len(tt.want), "errors: %v", se.Errors)
			for i, w := range tt.want {
				assert.Equal(t, w.Field, se.Errors[i].Field)
				assert.Contains(t, se.Errors[i].Message, w.Message)
			}
			assert.Contains(t, err.Error(), `invalid stack "demo": `+tt.want[0].Field)
		})
	}
}
