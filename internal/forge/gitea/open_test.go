package gitea

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

func TestOpenMakesOneCommitForTheWholeChange(t *testing.T) {
	s := giteaserver.Shared(t)
	f := newRepo(t, s)
	ctx := context.Background()
	forgetest.OpenAndMerge(t, f, forgetest.Change("one/provision-1", "contract/one",
		map[string][]byte{"a": []byte("1"), "b": []byte("2")}))
	mr, err := f.Open(ctx, forgetest.Change("one/update-2", "contract/one",
		map[string][]byte{"a": []byte("1b"), "c/d": []byte("4")})) // update a, delete b, create c/d
	require.NoError(t, err)

	c, err := s.Client(ctx)
	require.NoError(t, err)
	commit, _, err := c.GetSingleCommit(s.AdminUser, f.repo, mr.HeadSHA)
	require.NoError(t, err)
	require.Len(t, commit.Parents, 1)
	assert.Equal(t, mr.BaseSHA, commit.Parents[0].SHA, "the branch is one commit on top of the base")
	assert.Equal(t, "contract: one/update-2\n\nopened by the forge contract suite\n", commit.RepoCommit.Message)
	got, err := f.ReadDir(ctx, mr.HeadSHA, "contract/one")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"a": []byte("1b"), "c/d": []byte("4")}, got)
}

func TestBadTokenIsNonRetryableAndNamesTheVariable(t *testing.T) {
	s := giteaserver.Shared(t)
	good := newRepo(t, s)
	f, err := New(s.URL, s.AdminUser, good.repo, WithToken("0000000000000000000000000000000000000000"))
	require.NoError(t, err)
	_, err = f.Open(context.Background(), forgetest.Change("x/op-1", "contract/x", map[string][]byte{"f": []byte("x")}))
	var auth *AuthError
	require.ErrorAs(t, err, &auth)
	assert.Equal(t, 401, auth.Status)
	assert.Contains(t, err.Error(), EnvToken)
	assert.True(t, forge.IsNonRetryable(err))
}

func TestMissingRepoIsNotFound(t *testing.T) {
	s := giteaserver.Shared(t)
	f, err := New(s.URL, s.AdminUser, "no-such-repo", WithToken(s.Token))
	require.NoError(t, err)
	_, err = f.Head(context.Background())
	var nf *forge.NotFoundError
	require.ErrorAs(t, err, &nf)
	assert.Contains(t, nf.What, "no-such-repo")
}
