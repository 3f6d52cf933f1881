package localgit

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommitsNamesTheChangesToADir(t *testing.T) {
	ctx := context.Background()
	f, _ := newBare(t)
	mr, err := f.Open(ctx, change("slipway/a/b/deploy-1", "instances/a/b", map[string][]byte{"main.tf": []byte("# one\n")}))
	require.NoError(t, err)
	mr, err = f.Merge(ctx, mr)
	require.NoError(t, err)
	other, err := f.Open(ctx, change("other", "instances/c/d", map[string][]byte{"main.tf": []byte("# c\n")}))
	require.NoError(t, err)
	_, err = f.Merge(ctx, other)
	require.NoError(t, err)
	edit, err := f.Open(ctx, change("edit", "instances/a/b", map[string][]byte{"main.tf": []byte("# two\n")}))
	require.NoError(t, err)
	edited, err := f.Merge(ctx, edit)
	require.NoError(t, err)

	commits, err := f.Commits(ctx, mr.MergeSHA, edited.MergeSHA, "instances/a/b")
	require.NoError(t, err)
	require.Len(t, commits, 1, "the edit (its merge changes nothing of its own), not the other instance's")
	assert.Equal(t, edit.HeadSHA, commits[0].SHA)
	assert.Equal(t, "update instances/a/b", commits[0].Subject)
	assert.Equal(t, "slipway <slipway@localhost>", commits[0].Author)
	none, err := f.Commits(ctx, edited.MergeSHA, edited.MergeSHA, "instances/a/b")
	require.NoError(t, err)
	assert.Empty(t, none)
	_, err = f.Commits(ctx, "--all", edited.MergeSHA, "instances/a/b")
	require.Error(t, err)
}
