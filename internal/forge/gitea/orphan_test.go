package gitea

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

// A worker killed mid-commit leaves a branch in git that Gitea's database never recorded
// (Gitea cancels its push with the request, after the ref moved and before its hook ran).
// Simulated here by moving the ref in the bare repository behind Gitea's back.
func TestOrphanedBranchMovesTheChangeToTheNextName(t *testing.T) {
	s := giteaserver.Start(t)
	f := newRepo(t, s)
	ctx := context.Background()
	head, err := f.Head(ctx)
	require.NoError(t, err)
	c := forgetest.Change("orphan/deploy-3", "contract/orphan", map[string][]byte{"a": []byte("1")})
	bare := filepath.Join(s.Dir, "repos", s.AdminUser, f.repo+".git")
	out, err := exec.Command("git", "--git-dir", bare, "update-ref", "refs/heads/"+c.Branch, head).CombinedOutput()
	require.NoError(t, err, string(out))
	state, err := f.branchState(ctx, c.Branch)
	require.NoError(t, err)
	require.Equal(t, branchOrphaned, state, "git has the branch, Gitea's database does not")

	mr, err := f.Open(ctx, c)
	require.NoError(t, err, "the orphan does not wedge the change")
	assert.Equal(t, c.Branch+"-2", mr.Branch)
	got, ok, err := f.Get(ctx, c.Branch)
	require.NoError(t, err)
	require.True(t, ok, "Get follows the change to its PR")
	assert.Equal(t, mr.ID, got.ID)
	again, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, mr.ID, again.ID, "a retry opens nothing new")
	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.NotEmpty(t, merged.MergeSHA)

	_, ok, err = f.Get(ctx, "slipway/contract/other-1")
	require.NoError(t, err)
	assert.False(t, ok)
}
