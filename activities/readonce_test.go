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
