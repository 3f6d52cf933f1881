package localgit

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestReadDirAtARevision(t *testing.T) {
	f, _ := newBare(t)
	ctx := context.Background()
	v1 := map[string][]byte{"app.yaml": []byte("v: 1\n"), "deep/x/y.bin": {0, 1, 2, '\n', 0}}
	first, err := f.Merge(ctx, mustOpen(t, f, change("slipway/acme/web/provision-1", "instances/acme/web", v1)))
	require.NoError(t, err)
	v2 := map[string][]byte{"app.yaml": []byte("v: 2")}
	_, err = f.Merge(ctx, mustOpen(t, f, change("slipway/acme/web/update-2", "instances/acme/web", v2)))
	require.NoError(t, err)

	old, err := f.ReadDir(ctx, first.MergeSHA, "instances/acme/web")
	require.NoError(t, err)
	assert.Equal(t, v1, old, "content and binary bytes survive exactly")
	now, err := f.ReadDir(ctx, "", "instances/acme/web")
	require.NoError(t, err)
	assert.Equal(t, v2, now)
	parent, err := f.ReadDir(ctx, first.MergeSHA+"^", "instances/acme/web")
	require.NoError(t, err)
	assert.Empty(t, parent, "any git revision works")
}

func TestReadDirManyFiles(t *testing.T) {
	f, _ := newBare(t)
	files := map[string][]byte{}
	for i := 0; i < 300; i++ {
		files[fmt.Sprintf("d%d/f%d.yaml", i%7, i)] = []byte(fmt.Sprintf("i: %d\n%s", i, make([]byte, i)))
	}
	mr := mustOpen(t, f, change("slipway/acme/big/provision-1", "instances/acme/big", files))
	got, err := f.ReadDir(context.Background(), mr.HeadSHA, "instances/acme/big")
	require.NoError(t, err)
	assert.Equal(t, files, got)
}

func TestReadDirMissingAndBad(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	got, err := f.ReadDir(ctx, "", "instances/nobody")
	require.NoError(t, err)
	assert.NotNil(t, got)
	assert.Empty(t, got)
	got, err = f.ReadDir(ctx, "", "README.md/below")
	require.NoError(t, err)
	assert.Empty(t, got)

	_, err = f.ReadDir(ctx, "", "README.md")
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "dir", invalid.Field)

	_, err = f.ReadDir(ctx, "--output=/tmp/x", "")
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "rev", invalid.Field)

	_, err = f.ReadDir(ctx, "0123456789012345678901234567890123456789", "")
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "got %v", err)
	assert.Equal(t, "revision 0123456789012345678901234567890123456789 in "+dir, nf.What)
}

func mustOpen(t *testing.T, f *Forge, c forge.Change) forge.MergeRequest {
	t.Helper()
	mr, err := f.Open(context.Background(), c)
	require.NoError(t, err)
	return mr
}
