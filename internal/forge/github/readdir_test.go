package github

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestReadDirAtBranchSHAAndBase(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	sha := srv.CommitFiles(testOwner, testRepo, "main", "seed\n", map[string][]byte{
		"apps/web/a.yaml": []byte("a\n"), "apps/web/x/y/z.yaml": []byte("z\n"), "apps/webby/no": []byte("no")})
	want := map[string][]byte{"a.yaml": []byte("a\n"), "x/y/z.yaml": []byte("z\n")}
	for _, rev := range []string{"", "main", sha} {
		got, err := f.ReadDir(ctx, rev, "apps/web")
		require.NoError(t, err, rev)
		assert.Equal(t, want, got, rev)
	}
	got, err := f.ReadDir(ctx, "", "apps/web/x")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"y/z.yaml": []byte("z\n")}, got)

	for _, missing := range []string{"apps/none", "apps/web/a.yaml", "nope/deeper"} {
		got, err := f.ReadDir(ctx, "", missing)
		require.NoError(t, err, missing)
		assert.Empty(t, got, missing)
	}
}

func TestReadDirBadInput(t *testing.T) {
	f, _ := newFake(t)
	ctx := context.Background()
	_, err := f.ReadDir(ctx, "", "../x")
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "dir", invalid.Field)

	_, err = f.ReadDir(ctx, "no-such-branch", "apps")
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "got %v", err)
	assert.Contains(t, err.Error(), "no-such-branch")
}
