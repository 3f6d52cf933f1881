package gitea

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

// hook lets a test act on a request before it reaches Gitea.
type hook func(r *http.Request)

func (h hook) RoundTrip(r *http.Request) (*http.Response, error) {
	h(r)
	return http.DefaultTransport.RoundTrip(r)
}

// Each reopening of a closed change takes the next branch name; once every name holds a
// closed PR, Open says so instead of reusing one.
func TestReopenedChangesWalkTheBranchNames(t *testing.T) {
	s := giteaserver.Shared(t)
	f := newRepo(t, s)
	ctx := context.Background()
	c := forgetest.Change("again/deploy-1", "contract/again", map[string][]byte{"a": []byte("0")})
	for i, name := range branchCandidates(c.Branch) {
		c.Files = map[string][]byte{"a": []byte{byte('0' + i)}}
		mr, err := f.Open(ctx, c)
		require.NoError(t, err)
		assert.Equal(t, name, mr.Branch)
		closed, err := f.Close(ctx, mr)
		require.NoError(t, err)
		assert.Equal(t, name, closed.Branch, "the branch name, not Gitea's refs/pull/N/head")
		state, err := f.branchState(ctx, name)
		require.NoError(t, err)
		assert.Equal(t, branchFree, state, "the branch is deleted")
		got, ok, err := f.Get(ctx, c.Branch)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, closed, got, "Get finds the latest closed PR")
	}
	_, err := f.Open(ctx, c)
	var invalid *forge.InvalidError
	require.ErrorAs(t, err, &invalid)
	assert.Equal(t, "branch", invalid.Field)
	assert.True(t, forge.IsNonRetryable(err))
}

// Merged between Close's read and its PATCH: Gitea refuses the state change; Close says merged.
func TestCloseOfAPRMergedMeanwhileIsMergedError(t *testing.T) {
	s := giteaserver.Shared(t)
	plain := newRepo(t, s)
	var f *Forge
	var mr forge.MergeRequest
	pull := regexp.MustCompile(`/pulls/\d+$`)
	f, err := New(s.URL, s.AdminUser, plain.repo, WithToken(s.Token), WithHTTPClient(&http.Client{
		Timeout: time.Minute,
		Transport: hook(func(r *http.Request) {
			if r.Method == http.MethodPatch && pull.MatchString(r.URL.Path) {
				_, err := f.Merge(r.Context(), mr)
				require.NoError(t, err)
			}
		}),
	}))
	require.NoError(t, err)
	mr, err = f.Open(context.Background(), forgetest.Change("raced/deploy-1", "contract/raced", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)

	_, err = f.Close(context.Background(), mr)
	var me *forge.MergedError
	require.True(t, errors.As(err, &me), "want *forge.MergedError, got %v", err)
	assert.Equal(t, forge.StateMerged, me.MR.State)
	assert.NotEmpty(t, me.MR.MergeSHA)
	state, err := f.branchState(context.Background(), mr.Branch)
	require.NoError(t, err)
	assert.Equal(t, branchUsable, state, "a merged PR keeps its branch")
}
