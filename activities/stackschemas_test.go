package activities

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// The stacks on main, each with its schema.yaml ("" for a stack with none), by name; one stack
// by name; none for a name that is no stack or climbs out of stacks/.
func TestStackSchemasReadMain(t *testing.T) {
	schema := "parameters:\n  - name: greeting\n    type: string\n    required: true\n"
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/web/schema.yaml":            []byte(schema),
		"stacks/web/terraform/main.tf.tmpl": []byte("# web\n"),
		"stacks/bare/manifests/app.yaml":    []byte("kind: ConfigMap\n"),
		"stacks/README.md":                  []byte("the platform's stacks\n"),
		"schema.yaml":                       []byte("not a stack's\n"),
	})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	ctx := context.Background()
	all, err := a.ValidateConfig(ctx, contract.ValidateInput{Stacks: true})
	require.NoError(t, err)
	require.Equal(t, []contract.StackSchema{{Name: "bare"}, {Name: "web", SchemaYAML: schema}}, all.StackSchemas)
	one, err := a.ValidateConfig(ctx, contract.ValidateInput{Stacks: true, Stack: "web"})
	require.NoError(t, err)
	require.Equal(t, []contract.StackSchema{{Name: "web", SchemaYAML: schema}}, one.StackSchemas)
	for _, name := range []string{"nope", "..", "../stacks", "web/terraform"} {
		none, err := a.ValidateConfig(ctx, contract.ValidateInput{Stacks: true, Stack: name})
		require.NoError(t, err)
		require.Empty(t, none.StackSchemas, name)
	}
}

// The stacks list their releases from the releases files on main, oldest first, for all stacks
// and for one; a stack without releases lists none.
func TestStackSchemasListTheReleasesCut(t *testing.T) {
	schema := "parameters: []\n"
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{
		"stacks/web/schema.yaml": []byte(schema),
		"stacks/db/schema.yaml":  []byte(schema),
	})
	require.NoError(t, err)
	a := &Activities{Forge: f}
	cutReleases(t, a, "web", "1.0.0", "1.1.0")
	ctx := context.Background()
	all, err := a.ValidateConfig(ctx, contract.ValidateInput{Stacks: true})
	require.NoError(t, err)
	require.Equal(t, []contract.StackSchema{{Name: "db", SchemaYAML: schema}, {Name: "web", SchemaYAML: schema, Releases: []string{"1.0.0", "1.1.0"}}}, all.StackSchemas)
	one, err := a.ValidateConfig(ctx, contract.ValidateInput{Stacks: true, Stack: "web"})
	require.NoError(t, err)
	require.Equal(t, []string{"1.0.0", "1.1.0"}, one.StackSchemas[0].Releases)
}
