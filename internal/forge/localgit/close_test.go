package localgit

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestCloseMovesTheBranchToARecordClonesDoNotFetch(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/op-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	closed, err := f.Close(ctx, mr)
	require.NoError(t, err)

	assert.Empty(t, gitIn(t, dir, "for-each-ref", "refs/heads/slipway/"), "the branch is gone")
	assert.Equal(t, mr.HeadSHA, gitIn(t, dir, "rev-parse", closedNS+mr.Branch))
	files, err := f.ReadDir(ctx, closed.HeadSHA, "instances/acme/web")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"a": []byte("1")}, files, "the closed change stays readable")
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, t.TempDir(), "clone", "-q", "--mirror", dir, clone)
	assert.Empty(t, gitIn(t, clone, "for-each-ref", "refs/heads/slipway/"))
}

// Someone pushed to the MR's branch: Close still closes it, at the head it has now.
func TestCloseABranchThatMoved(t *testing.T) {
	f, dir := newNonBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/op-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	tree := gitIn(t, dir, "rev-parse", mr.HeadSHA+"^{tree}")
	pushed := gitIn(t, dir, "commit-tree", "-p", mr.HeadSHA, "-m", "hand edit", tree)
	gitIn(t, dir, "update-ref", "refs/heads/"+mr.Branch, pushed)

	closed, err := f.Close(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateClosed, closed.State)
	assert.Equal(t, pushed, closed.HeadSHA)
	open, err := f.ListOpen(ctx, "slipway/")
	require.NoError(t, err)
	assert.Empty(t, open)
}

// A merge that raced the Close landed the change: the record says merged, and so does Close.
func TestCloseOfARecordMergedMeanwhile(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/op-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	_, err = f.Close(ctx, mr)
	require.NoError(t, err)
	gitIn(t, dir, "update-ref", "refs/heads/"+mr.Branch, mr.HeadSHA) // the branch as the merge saw it
	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	gitIn(t, dir, "update-ref", "-d", "refs/heads/"+mr.Branch)

	got, ok, err := f.Get(ctx, mr.Branch)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, merged, got)
	_, err = f.Close(ctx, mr)
	var me *forge.MergedError
	require.True(t, errors.As(err, &me), "want *forge.MergedError, got %v", err)
	assert.Equal(t, merged, me.MR)
}

func TestConcurrentClosesAllSucceed(t *testing.T) {
	f1, dir := newBare(t)
	f2, err := New(dir)
	require.NoError(t, err)
	ctx := context.Background()
	mr, err := f1.Open(ctx, change("slipway/acme/web/op-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	const n = 8
	var wg sync.WaitGroup
	results := make([]forge.MergeRequest, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = []*Forge{f1, f2}[i%2].Close(ctx, mr)
		}()
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, forge.StateClosed, results[i].State)
		assert.Equal(t, mr.HeadSHA, results[i].HeadSHA)
	}
}
