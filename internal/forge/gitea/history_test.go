package gitea

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

// On a real Gitea: the commits after from that changed dir, not those of another directory.
func TestCommitsNamesTheChangesToADir(t *testing.T) {
	ctx := context.Background()
	f := newRepo(t, giteaserver.Shared(t))
	merge := func(branch, dir, body string) forge.MergeRequest {
		mr, err := f.Open(ctx, forge.Change{Branch: branch, Title: "update " + dir, Dir: dir, Files: map[string][]byte{"main.tf": []byte(body)}})
		require.NoError(t, err)
		mr, err = f.Merge(ctx, mr)
		require.NoError(t, err)
		return mr
	}
	first := merge("slipway/a/b/deploy-1", "instances/a/b", "# one\n")
	other := merge("other", "instances/c/d", "# c\n")
	edit := merge("edit", "instances/a/b", "# two\n")

	commits, err := f.Commits(ctx, first.MergeSHA, edit.MergeSHA, "instances/a/b")
	require.NoError(t, err)
	var shas []string
	for _, c := range commits {
		shas = append(shas, c.SHA)
		assert.NotEqual(t, first.HeadSHA, c.SHA, "nothing from before from")
	}
	require.Contains(t, shas, edit.HeadSHA, "the edit")
	require.NotContains(t, shas, other.HeadSHA, "not another directory's change")
	for _, c := range commits {
		if c.SHA == edit.HeadSHA {
			assert.Equal(t, "update instances/a/b", c.Subject)
			assert.Contains(t, c.Author, "<")
		}
	}
	none, err := f.Commits(ctx, edit.MergeSHA, edit.MergeSHA, "instances/a/b")
	require.NoError(t, err)
	assert.Empty(t, none)
}
