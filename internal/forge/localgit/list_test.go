package localgit

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestListOpenIsOldestFirstByCommitTime(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	main := gitIn(t, dir, "rev-parse", "main")
	// Names sort the other way round from dates, so only date order passes.
	for branch, date := range map[string]string{
		"slipway/acme/zeta/deploy-1":  "2020-01-01T00:00:00Z",
		"slipway/acme/alpha/deploy-1": "2024-01-01T00:00:00Z",
		"slipway/acme/mid/deploy-1":   "2022-01-01T00:00:00Z",
	} {
		commit := gitEnv(t, dir, []string{"GIT_COMMITTER_DATE=" + date}, "commit-tree", "-p", main, "-m", "title "+branch, main+"^{tree}")
		gitIn(t, dir, "update-ref", "refs/heads/"+branch, commit)
	}
	mr, err := f.Open(ctx, change("slipway/other/web/deploy-1", "instances/other/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)

	open, err := f.ListOpen(ctx, "slipway/acme/")
	require.NoError(t, err)
	var ids []string
	for _, o := range open {
		ids = append(ids, o.ID)
		assert.Equal(t, forge.StateOpen, o.State)
		assert.Equal(t, main, o.BaseSHA)
		assert.Equal(t, "title "+o.Branch, o.Title)
		assert.Equal(t, "file://"+dir+"#"+o.Branch, o.URL)
	}
	assert.Equal(t, []string{"slipway/acme/zeta/deploy-1", "slipway/acme/mid/deploy-1", "slipway/acme/alpha/deploy-1"}, ids)

	all, err := f.ListOpen(ctx, "")
	require.NoError(t, err)
	assert.Len(t, all, 4, "every open branch but main")
	_, err = f.Merge(ctx, mr)
	require.NoError(t, err)
	other, err := f.ListOpen(ctx, "slipway/other/")
	require.NoError(t, err)
	assert.Empty(t, other, "a merged MR is not open")
}
