package gitea

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	s := giteaserver.Shared(t)
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

// A merge whose push landed in git while Gitea's request was cut off leaves the PR open in
// Gitea with its head already on main; Merge finds the merge commit instead of waiting forever.
// Simulated by merging the branch into main with git and pushing, as an operator might.
func TestMergeFoundInGitIsTakenAsMerged(t *testing.T) {
	s := giteaserver.Shared(t)
	f := newRepo(t, s)
	ctx := context.Background()
	c := forgetest.Change("lost/deploy-3", "contract/lost", map[string][]byte{"a": []byte("1")})
	mr, err := f.Open(ctx, c)
	require.NoError(t, err)

	clone := filepath.Join(t.TempDir(), "clone")
	url := strings.Replace(s.URL, "://", "://"+s.AdminUser+":"+s.Token+"@", 1) + "/" + s.AdminUser + "/" + f.repo + ".git"
	git(t, filepath.Dir(clone), "clone", "-q", "--branch", "main", url, clone)
	git(t, clone, "fetch", "-q", "origin", c.Branch)
	git(t, clone, "merge", "-q", "--no-ff", "-m", "merged behind Gitea's back", "FETCH_HEAD")
	want := git(t, clone, "rev-parse", "HEAD")
	git(t, clone, "push", "-q", "origin", "main")

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, want, merged.MergeSHA)
	assert.Equal(t, "merged", string(merged.State))
	again, ok, err := f.Get(ctx, c.Branch)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, "merged", string(again.State), "Gitea records it as merged (the repo allows manual merges)")
	head, err := f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, head, "nothing was merged a second time")
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=operator", "GIT_AUTHOR_EMAIL=op@localhost",
		"GIT_COMMITTER_NAME=operator", "GIT_COMMITTER_EMAIL=op@localhost")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}
