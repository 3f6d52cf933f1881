package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

type countingForge struct {
	forge.Forge
	reads int
}

func (c *countingForge) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	c.reads++
	return map[string][]byte{dir + "/a": []byte(rev)}, nil
}

// One activity reads each revision's directory once, and a caller changing its map changes no one else's.
func TestReadOnceReadsEachDirectoryOnce(t *testing.T) {
	c := &countingForge{}
	a := (&Activities{Forge: c}).readingOnce()
	ctx := context.Background()
	first, err := a.Forge.ReadDir(ctx, "abc", "stacks/web")
	require.NoError(t, err)
	delete(first, "stacks/web/a")
	again, err := a.Forge.ReadDir(ctx, "abc", "stacks/web")
	require.NoError(t, err)
	require.Equal(t, map[string][]byte{"stacks/web/a": []byte("abc")}, again)
	_, err = a.Forge.ReadDir(ctx, "def", "stacks/web")
	require.NoError(t, err)
	require.Equal(t, 2, c.reads)
}

type mirroredForge struct{ countingForge }

func (m *mirroredForge) HeadVia(context.Context) (string, string, error) {
	return "abc", "file:///mirror.git", nil
}
func (m *mirroredForge) MirrorURL() string { return "file:///mirror.git" }
func (m *mirroredForge) RepoURL() string   { return "https://forge.example/gitops.git" }

// Reading once keeps what the forge below does: while the forge is down ArgoCD still reads the mirror.
func TestReadOnceKeepsTheMirror(t *testing.T) {
	a := (&Activities{Forge: &mirroredForge{}}).readingOnce()
	_, plain := a.Forge.(forge.Mirrored)
	require.False(t, plain, "the wrapper alone hides the mirror")
	_, ok := forge.As[forge.Mirrored](a.Forge)
	require.True(t, ok)
	require.Equal(t, "file:///mirror.git", a.repoURL(context.Background()))
	_, ok = forge.As[forge.Reporter](a.Forge)
	require.False(t, ok, "a forge that does not report is not made to")
}
