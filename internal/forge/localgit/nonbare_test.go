package localgit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newNonBare makes a repository with a work tree and a checked-out main and opens it.
func newNonBare(t *testing.T) (*Forge, string) {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "--initial-branch=main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("work tree\n"), 0o644))
	gitIn(t, dir, "add", "README.md")
	gitIn(t, dir, "commit", "-q", "--no-gpg-sign", "-m", "initial")
	f, err := New(dir)
	require.NoError(t, err)
	return f, dir
}

func TestNonBareWorkTreeAndIndexUntouched(t *testing.T) {
	f, dir := newNonBare(t)
	ctx := context.Background()
	index, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)

	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"app.yaml": []byte("a: 1\n")}))
	require.NoError(t, err)
	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)

	assert.Equal(t, merged.MergeSHA, gitIn(t, dir, "rev-parse", "main"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{".git", "README.md"}, names, "no file may appear in the work tree")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	assert.Equal(t, "work tree\n", string(readme))
	after, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	require.NoError(t, err)
	assert.Equal(t, index, after, "the repository's own index must not change")
	assert.Equal(t, "file://"+dir, f.RepoURL())
}
