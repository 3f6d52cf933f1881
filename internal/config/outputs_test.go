package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemaOutputs(t *testing.T) {
	s, err := ParseSchema([]byte("secrets: [api_key]\noutputs:\n  secret: [db_password, admin-token]\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"db_password", "admin-token"}, s.Outputs.Secret)

	none, err := ParseSchema([]byte("approval: never\n"))
	require.NoError(t, err)
	assert.Empty(t, none.Outputs.Secret, "a stack from before outputs: sends none to its Secret")

	for _, tc := range []struct{ yaml, msg string }{
		{"outputs: [db_password]", "schema.outputs: must be a mapping with the key secret"},
		{"outputs: {public: [x]}", "schema.outputs.public: unknown field (line 1); allowed: secret"},
		{"outputs: {secret: db_password}", "schema.outputs.secret: must be a list of terraform output names"},
		{"outputs: {secret: [\"db password\"]}", "schema.outputs.secret[0]: must be a terraform output name"},
		{"outputs: {secret: [\"../etc\"]}", "schema.outputs.secret[0]: must be a terraform output name"},
		{"outputs: {secret: [a, b, a]}", `schema.outputs.secret[2]: output "a" is listed twice`},
		{"outputs: {secret: [{x: 1}]}", "schema.outputs.secret[0]"},
		{"secrets: [token]\noutputs: {secret: [token]}", `schema.outputs.secret[0]: "token" is also in schema.secrets`},
		{"output: {secret: [x]}", "schema.output: unknown field"},
	} {
		_, err := ParseSchema([]byte(tc.yaml + "\n"))
		require.ErrorContains(t, err, tc.msg, tc.yaml)
	}
}

func TestStackSecretOutputsMustBeDeclared(t *testing.T) {
	files := map[string][]byte{SchemaFile: []byte("outputs: {secret: [db_password, nope]}\n"),
		"terraform/main.tf.tmpl": []byte("output \"db_password\" {\n  value     = \"x\"\n  sensitive = true\n}\n")}
	_, err := LoadStack("demo", files)
	require.ErrorContains(t, err, `schema.outputs.secret[1]: the stack's terraform declares no output "nope"`)
	require.NotContains(t, err.Error(), "secret[0]")
}
