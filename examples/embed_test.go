package examples

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStackFiles(t *testing.T) {
	files, err := StackFiles("example")
	require.NoError(t, err)
	keys := make([]string, 0, len(files))
	for k := range files {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"schema.yaml", "terraform/main.tf.tmpl", "manifests/app.yaml.tmpl"}, keys)
	assert.Contains(t, string(files["schema.yaml"]), "name: region")
}

func TestStackFilesUnknown(t *testing.T) {
	for _, name := range []string{"nope", "", "..", "example/terraform", "../stacks/example"} {
		files, err := StackFiles(name)
		require.NoError(t, err, name)
		assert.Empty(t, files, name)
	}
}

func TestInstanceFile(t *testing.T) {
	data, err := FS.ReadFile("instances/web.yaml")
	require.NoError(t, err)
	assert.Contains(t, string(data), "stack: example")
}
