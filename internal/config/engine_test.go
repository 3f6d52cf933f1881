package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func TestSchemaEngine(t *testing.T) {
	s, err := ParseSchema([]byte("engine: opentofu\nengineVersion: \">= 1.10, < 2\"\n"))
	require.NoError(t, err)
	assert.Equal(t, Engine{Name: EngineOpenTofu, Version: ">= 1.10, < 2"}, s.Engine)
	assert.Equal(t, "opentofu >= 1.10, < 2", s.Engine.String())

	none, err := ParseSchema([]byte("approval: never\n"))
	require.NoError(t, err)
	assert.True(t, none.Engine.IsZero(), "a stack from before engine: runs on the worker's terraform")
	assert.Equal(t, "terraform", none.Engine.String())

	for _, tc := range []struct{ yaml, msg string }{
		{"engine: pulumi", `schema.engine: unknown engine "pulumi" (line 1); allowed: terraform, opentofu`},
		{"engine: [terraform]", "schema.engine: must be a string"},
		{"engine: Terraform", `unknown engine "Terraform"`},
		{"engineVersion: banana", `schema.engineVersion: "banana" is not a version constraint`},
		{"engineVersion: \"~> 1.10; rm -rf /\"", "schema.engineVersion"},
		{"engineVersion: 1.10", "schema.engineVersion: must be a string"}, // YAML reads 1.10 as 1.1: quote it
	} {
		_, err := ParseSchema([]byte(tc.yaml + "\n"))
		if tc.msg == "" {
			require.NoError(t, err, tc.yaml)
			continue
		}
		require.ErrorContains(t, err, tc.msg, tc.yaml)
	}
}

func TestRenderEngineFile(t *testing.T) {
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	inst := &Instance{Stack: "demo", Parameters: map[string]any{"greeting": "hi", "size": 2}}
	plain := testStack(t, map[string]string{"terraform/main.tf": "terraform {}\n"})
	out, err := Render(ref, "acme-web", plain, inst)
	require.NoError(t, err)
	assert.NotContains(t, out, EngineFile, "a stack that names no engine renders as before")

	files := map[string][]byte{SchemaFile: []byte(testSchema + "engine: opentofu\nengineVersion: \"~> 1.10\"\n"), "terraform/main.tf": []byte("terraform {}\n")}
	st, err := LoadStack("demo", files)
	require.NoError(t, err)
	out, err = Render(ref, "acme-web", st, inst)
	require.NoError(t, err)
	require.Equal(t, "opentofu ~> 1.10\n", string(out[EngineFile]))
	e, err := ParseEngineFile(out[EngineFile])
	require.NoError(t, err)
	assert.Equal(t, st.Schema.Engine, e, "the rendered file reads back as the stack's engine")

	for _, bad := range []string{"", "pulumi", "opentofu banana"} {
		_, err := ParseEngineFile([]byte(bad))
		require.ErrorContains(t, err, EngineFile+":", bad)
	}
}
