package activities

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// blipForge fails its first reads with errs, then reads.
type blipForge struct {
	forge.Forge
	errs  []error
	reads int
}

func (b *blipForge) ReadDir(ctx context.Context, rev, dir string) (map[string][]byte, error) {
	b.reads++
	if b.reads <= len(b.errs) {
		return nil, b.errs[b.reads-1]
	}
	return b.Forge.ReadDir(ctx, rev, dir)
}

// A shared read that blips is asked again within the step (two blips cost a moment, not the
// step's attempt); an answer a retry cannot change (not found) is not.
func TestSharedReadRetriesABlipNotAnAnswer(t *testing.T) {
	ctx := context.Background()
	f, err := localgit.Init(filepath.Join(t.TempDir(), "gitops.git"), map[string][]byte{"stacks/s/schema.yaml": []byte("parameters: []\n")})
	require.NoError(t, err)
	head, err := f.Head(ctx)
	require.NoError(t, err)
	blip := errors.New("connection reset by peer")
	b := &blipForge{Forge: f, errs: []error{blip, blip}}
	files, err := (&Activities{Forge: b}).readSharedDir(ctx, head, "stacks/s")
	require.NoError(t, err)
	require.Contains(t, files, "schema.yaml")
	require.Equal(t, 3, b.reads)

	b = &blipForge{Forge: f, errs: []error{blip, blip, blip}}
	_, err = (&Activities{Forge: b}).readSharedDir(ctx, "main", "stacks/s")
	require.ErrorIs(t, err, blip, "three blips: the step's attempt fails, to be retried by Temporal")
	require.Equal(t, 3, b.reads)

	gone := &forge.NotFoundError{What: "branch main"}
	b = &blipForge{Forge: f, errs: []error{gone}}
	_, err = (&Activities{Forge: b}).readSharedDir(ctx, "main", "stacks/s")
	require.ErrorAs(t, err, &gone)
	require.Equal(t, 1, b.reads, "not found is an answer")
}
