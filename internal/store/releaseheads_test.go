package store

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// headsContract: a head only rises; an equal or lower generation leaves it, with its first seal.
func headsContract(t *testing.T, h ReleasesHeads) {
	ctx := context.Background()
	raise := func(stack string, gen int, seal string) (int, string) {
		g, s, err := h.RaiseReleasesHead(ctx, stack, gen, seal)
		require.NoError(t, err)
		return g, s
	}
	g, s, err := h.ReleasesHead(ctx, "web")
	require.NoError(t, err)
	require.Equal(t, -1, g, "no head is recorded yet, and reading records none")
	g, s = raise("web", 0, "s0")
	require.Equal(t, 0, g)
	require.Equal(t, "s0", s, "the first seen is recorded, generation 0 included")
	g, s = raise("web", 0, "other")
	require.Equal(t, 0, g)
	require.Equal(t, "s0", s, "the same generation keeps its first seal")
	g, s = raise("web", 2, "s2")
	require.Equal(t, 2, g)
	require.Equal(t, "s2", s)
	g, s = raise("web", 1, "s1")
	require.Equal(t, 2, g, "a lower generation never moves the head back")
	require.Equal(t, "s2", s)
	g, _ = raise("db", 1, "d1")
	require.Equal(t, 1, g, "each stack has its own head")
	g, s, err = h.ReleasesHead(ctx, "web")
	require.NoError(t, err)
	require.Equal(t, 2, g)
	require.Equal(t, "s2", s)
	_, _, err = h.RaiseReleasesHead(ctx, "", 1, "x")
	require.Error(t, err)
}

func TestHeadDirOnlyRises(t *testing.T) {
	headsContract(t, HeadDir(filepath.Join(t.TempDir(), HeadsDirName)))
}

func TestReleasesHeadsInTheSharedStore(t *testing.T) {
	pg := postgres.Start(t)
	k, _ := keys(t, "k1")
	headsContract(t, open(t, pg.CreateDB(t, "heads"), k))
}
