package github

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
)

func openOne(t *testing.T, f *Forge, name string) forge.MergeRequest {
	t.Helper()
	mr, err := f.Open(context.Background(), forgetest.Change(name, "apps/"+name, map[string][]byte{"f": []byte(name)}))
	require.NoError(t, err)
	return mr
}

func TestMergeMakesAMergeCommitOnBothParents(t *testing.T) {
	f, srv := newFake(t)
	mr := openOne(t, f, "m/op-1")
	merged, err := f.Merge(context.Background(), mr)
	require.NoError(t, err)
	assert.Equal(t, []string{mr.BaseSHA, mr.HeadSHA}, srv.Parents(testOwner, testRepo, merged.MergeSHA))
	assert.Equal(t, mr.HeadSHA, srv.Ref(testOwner, testRepo, mr.Branch), "the branch stays after the merge")
}

func TestMerge405WhileMergeableIsRetryable(t *testing.T) {
	f, srv := newFake(t)
	mr := openOne(t, f, "m/op-1")
	head, err := f.Head(context.Background())
	require.NoError(t, err)
	srv.FailNextMerges(http.StatusMethodNotAllowed)

	_, err = f.Merge(context.Background(), mr)
	var nm *NotMergeableError
	require.True(t, errors.As(err, &nm), "want *NotMergeableError, got %v", err)
	assert.Contains(t, err.Error(), "Base branch was modified")
	assert.False(t, forge.IsNonRetryable(err))
	var ce *forge.ConflictError
	assert.False(t, errors.As(err, &ce))
	after, err := f.Head(context.Background())
	require.NoError(t, err)
	assert.Equal(t, head, after)

	merged, err := f.Merge(context.Background(), mr)
	require.NoError(t, err, "the retry merges")
	assert.Equal(t, forge.StateMerged, merged.State)
}

func TestMerge405ConflictNamesPaths(t *testing.T) {
	f, srv := newFake(t)
	mr, err := f.Open(context.Background(), forgetest.Change("c/op-1", "apps/c", map[string][]byte{
		"app.yaml": []byte("mine\n"), "only-mine.yaml": []byte("m\n")}))
	require.NoError(t, err)
	srv.CommitFiles(testOwner, testRepo, "main", "someone else\n", map[string][]byte{
		"apps/c/app.yaml": []byte("theirs\n"), "apps/other/only-theirs.yaml": []byte("t\n")})

	_, err = f.Merge(context.Background(), mr)
	var ce *forge.ConflictError
	require.True(t, errors.As(err, &ce), "want *forge.ConflictError, got %v", err)
	assert.Equal(t, []string{"apps/c/app.yaml"}, ce.Paths)
	assert.True(t, forge.IsNonRetryable(err))
}

func TestMerge409HeadChanged(t *testing.T) {
	ctx := context.Background()
	t.Run("branch pushed to since Open", func(t *testing.T) {
		f, srv := newFake(t)
		mr := openOne(t, f, "h/op-1")
		pushed := srv.CommitFiles(testOwner, testRepo, mr.Branch, "sneaky\n", map[string][]byte{"apps/h/x": []byte("x")})
		_, err := f.Merge(ctx, mr)
		var hc *forge.HeadChangedError
		require.True(t, errors.As(err, &hc), "want *forge.HeadChangedError, got %v", err)
		assert.Equal(t, forge.HeadChangedError{Branch: mr.Branch, Want: mr.HeadSHA, Got: pushed}, *hc)
		assert.True(t, forge.IsNonRetryable(err))
		got, ok, err := f.Get(ctx, mr.Branch)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, forge.StateOpen, got.State)
	})
	t.Run("409 from GitHub", func(t *testing.T) {
		f, srv := newFake(t)
		mr := openOne(t, f, "h/op-2")
		srv.FailNextMerges(http.StatusConflict)
		_, err := f.Merge(ctx, mr)
		var hc *forge.HeadChangedError
		require.True(t, errors.As(err, &hc), "want *forge.HeadChangedError, got %v", err)
		assert.Equal(t, mr.HeadSHA, hc.Want)
	})
}

func TestMergeRejectsAnMROfAnotherBranch(t *testing.T) {
	f, _ := newFake(t)
	mr := openOne(t, f, "x/op-1")
	mr.Branch = "slipway/contract/y/op-1"
	_, err := f.Merge(context.Background(), mr)
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "mr", invalid.Field)
}
