package github

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
)

const (
	createTree   = "POST /repos/{owner}/{repo}/git/trees"
	createCommit = "POST /repos/{owner}/{repo}/git/commits"
	createBlob   = "POST /repos/{owner}/{repo}/git/blobs"
	createPull   = "POST /repos/{owner}/{repo}/pulls"
	listPulls    = "GET /repos/{owner}/{repo}/pulls"
)

func TestOpenMakesOneTreeAndOneCommit(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	forgetest.OpenAndMerge(t, f, forgetest.Change("web/provision-1", "apps/web", map[string][]byte{
		"old.yaml": []byte("old\n"), "keep.yaml": []byte("keep\n")}))
	trees, commits := srv.Calls(createTree), srv.Calls(createCommit)

	mr, err := f.Open(ctx, forgetest.Change("web/update-2", "apps/web", map[string][]byte{
		"keep.yaml": []byte("keep\n"), "a.yaml": []byte("a\n"), "deep/b/c.yaml": []byte("c\n")}))
	require.NoError(t, err)
	assert.Equal(t, trees+1, srv.Calls(createTree), "one tree for the whole directory")
	assert.Equal(t, commits+1, srv.Calls(createCommit), "one commit for the whole directory")
	assert.Equal(t, []string{mr.BaseSHA}, srv.Parents(testOwner, testRepo, mr.HeadSHA))
	got, err := f.ReadDir(ctx, mr.HeadSHA, "apps/web")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"keep.yaml": []byte("keep\n"), "a.yaml": []byte("a\n"), "deep/b/c.yaml": []byte("c\n")}, got)
	assert.Equal(t, srv.URL+"acme/gitops/pull/"+mr.ID, mr.URL)
}

func TestOpenNoChangesCreatesNothing(t *testing.T) {
	f, srv := newFake(t)
	mr, err := f.Open(context.Background(), forgetest.Change("gone/deprovision-1", "apps/none", nil))
	require.NoError(t, err)
	assert.True(t, mr.NoChanges)
	assert.Zero(t, srv.Calls(createTree)+srv.Calls(createCommit)+srv.Calls(createPull))
	assert.Empty(t, srv.Ref(testOwner, testRepo, "slipway/contract/gone/deprovision-1"))
}

func TestOpenBinaryFileGoesUpAsBlob(t *testing.T) {
	f, srv := newFake(t)
	bin := map[string][]byte{"logo.png": {0x89, 'P', 'N', 'G', 0xff, 0x00, 0xfe}}
	mr, err := f.Open(context.Background(), forgetest.Change("bin/op-1", "apps/bin", bin))
	require.NoError(t, err)
	assert.Equal(t, 1, srv.Calls(createBlob))
	got, err := f.ReadDir(context.Background(), mr.HeadSHA, "apps/bin")
	require.NoError(t, err)
	assert.Equal(t, bin, got)
}

func TestOpenResumesAfterACrash(t *testing.T) {
	ctx := context.Background()
	t.Run("branch without its commit is fast-forwarded", func(t *testing.T) {
		f, srv := newFake(t)
		base, err := f.Head(ctx)
		require.NoError(t, err)
		_, err = f.pointBranch(ctx, "slipway/contract/crash/op-1", base, false)
		require.NoError(t, err)
		files := map[string][]byte{"f": []byte("1")}
		mr, err := f.Open(ctx, forgetest.Change("crash/op-1", "apps/crash", files))
		require.NoError(t, err)
		assert.Equal(t, forge.StateOpen, mr.State)
		assert.Equal(t, mr.HeadSHA, srv.Ref(testOwner, testRepo, "slipway/contract/crash/op-1"))
		got, err := f.ReadDir(ctx, mr.Branch, "apps/crash")
		require.NoError(t, err)
		assert.Equal(t, files, got)
	})
	t.Run("branch with its commit but no PR keeps its content", func(t *testing.T) {
		f, srv := newFake(t)
		base, err := f.Head(ctx)
		require.NoError(t, err)
		first := forgetest.Change("crash/op-2", "apps/crash", map[string][]byte{"f": []byte("first")})
		commit, _, err := f.commit(ctx, base, first)
		require.NoError(t, err)
		_, err = f.pointBranch(ctx, first.Branch, commit, false)
		require.NoError(t, err)
		retry := first
		retry.Files = map[string][]byte{"f": []byte("second")}
		mr, err := f.Open(ctx, retry)
		require.NoError(t, err)
		assert.Equal(t, commit, mr.HeadSHA)
		assert.Equal(t, base, mr.BaseSHA)
		assert.Equal(t, 1, srv.Calls(createCommit), "the retry builds no second commit")
	})
}
