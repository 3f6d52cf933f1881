package mirror

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// downForge is a forge that cannot be reached, as a stopped Gitea is.
type downForge struct{ forge.Forge }

var errDown = errors.New("dial tcp 127.0.0.1:3000: connect: connection refused")

func (downForge) Head(context.Context) (string, error) { return "", errDown }
func (downForge) ReadDir(context.Context, string, string) (map[string][]byte, error) {
	return nil, errDown
}

func TestReadsFallBackToTheMirrorOnlyWhileTheForgeIsDown(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	primary, err := localgit.Init(filepath.Join(dir, "primary"), map[string][]byte{"instances/a/b/instance.yaml": []byte("stack: x\n")})
	require.NoError(t, err)
	mirrored, err := localgit.Init(filepath.Join(dir, "mirror"), map[string][]byte{"instances/a/b/instance.yaml": []byte("stack: mirrored\n")})
	require.NoError(t, err)

	up := New(primary, mirrored)
	sha, via, err := up.HeadVia(ctx)
	require.NoError(t, err)
	assert.Equal(t, primary.RepoURL(), via)
	want, _ := primary.Head(ctx)
	assert.Equal(t, want, sha)
	files, err := up.ReadDir(ctx, "", "instances/a/b")
	require.NoError(t, err)
	assert.Equal(t, "stack: x\n", string(files["instance.yaml"]))
	_, err = up.ReadDir(ctx, "0123456789012345678901234567890123456789", "instances/a/b")
	assert.Error(t, err, "a definite answer from the forge is not overridden by the mirror")

	down := New(downForge{primary}, mirrored)
	_, via, err = down.HeadVia(ctx)
	require.NoError(t, err)
	assert.Equal(t, mirrored.RepoURL(), via)
	files, err = down.ReadDir(ctx, "", "instances/a/b")
	require.NoError(t, err)
	assert.Equal(t, "stack: mirrored\n", string(files["instance.yaml"]))

	both := New(downForge{primary}, downForge{mirrored})
	_, err = both.Head(ctx)
	require.Error(t, err)
	assert.ErrorIs(t, err, errDown)
}
