package github

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

const (
	patchPull = "PATCH /repos/{owner}/{repo}/pulls/{number}"
	deleteRef = "DELETE /repos/{owner}/{repo}/git/refs/{ref...}"
)

// hook lets a test act on a request before it reaches the fake (or instead of it).
type hook func(r *http.Request) (*http.Response, error)

func (h hook) RoundTrip(r *http.Request) (*http.Response, error) {
	if resp, err := h(r); resp != nil || err != nil {
		return resp, err
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestCloseClosesThePRAndDeletesItsBranch(t *testing.T) {
	f, srv := newFake(t)
	mr := openOne(t, f, "c/op-1")
	closed, err := f.Close(context.Background(), mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateClosed, closed.State)
	assert.Empty(t, srv.Ref(testOwner, testRepo, mr.Branch), "the branch is deleted")
	assert.Equal(t, 1, srv.Calls(patchPull))
	assert.Equal(t, 1, srv.Calls(deleteRef))

	again, err := f.Close(context.Background(), closed)
	require.NoError(t, err)
	assert.Equal(t, closed, again)
	assert.Equal(t, 1, srv.Calls(patchPull), "a closed PR is not closed again")
	assert.Equal(t, 1, srv.Calls(deleteRef), "a deleted branch is not deleted again")
}

// The PR closed but the answer to the branch deletion was lost: the retry deletes the branch.
func TestCloseRetryAfterALostDeleteFinishes(t *testing.T) {
	lose := true
	srv := fakegithub.New(t)
	srv.AddRepo(testOwner, testRepo, "main")
	f, err := New(testOwner, testRepo, WithBaseURL(srv.URL), WithToken(srv.Token),
		WithHTTPClient(&http.Client{Transport: hook(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodDelete && lose {
				lose = false
				return nil, errors.New("connection reset by peer")
			}
			return nil, nil
		})}))
	require.NoError(t, err)
	mr := openOne(t, f, "c/op-1")

	_, err = f.Close(context.Background(), mr)
	require.Error(t, err)
	assert.False(t, forge.IsNonRetryable(err))
	require.NotEmpty(t, srv.Ref(testOwner, testRepo, mr.Branch), "the branch outlived the lost answer")
	closed, err := f.Close(context.Background(), mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateClosed, closed.State)
	assert.Empty(t, srv.Ref(testOwner, testRepo, mr.Branch))
}

// Merged by someone between Close's read and its PATCH: GitHub answers 422, Close says merged.
func TestCloseOfAPRMergedMeanwhileIsMergedError(t *testing.T) {
	var f *Forge
	var mr forge.MergeRequest
	srv := fakegithub.New(t)
	srv.AddRepo(testOwner, testRepo, "main")
	f, err := New(testOwner, testRepo, WithBaseURL(srv.URL), WithToken(srv.Token),
		WithHTTPClient(&http.Client{Transport: hook(func(r *http.Request) (*http.Response, error) {
			if r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/pulls/") {
				_, err := f.Merge(r.Context(), mr)
				require.NoError(t, err)
			}
			return nil, nil
		})}))
	require.NoError(t, err)
	mr = openOne(t, f, "c/op-1")

	_, err = f.Close(context.Background(), mr)
	var me *forge.MergedError
	require.True(t, errors.As(err, &me), "want *forge.MergedError, got %v", err)
	assert.Equal(t, forge.StateMerged, me.MR.State)
	assert.Equal(t, mr.HeadSHA, srv.Ref(testOwner, testRepo, mr.Branch), "a merged PR keeps its branch")
}

func TestCloseWithoutChangesMakesNoCall(t *testing.T) {
	calls := 0
	f, err := New(testOwner, testRepo, WithBaseURL("http://127.0.0.1:1/"),
		WithHTTPClient(&http.Client{Transport: hook(func(*http.Request) (*http.Response, error) {
			calls++
			return nil, errors.New("no call expected")
		})}))
	require.NoError(t, err)
	mr := forge.MergeRequest{Branch: "slipway/a/b/op-1", BaseSHA: "abc", NoChanges: true}
	got, err := f.Close(context.Background(), mr)
	require.NoError(t, err)
	assert.Equal(t, mr, got)
	assert.Zero(t, calls)
}

// A branch someone moved after Close's read is another PR's now: Close leaves it alone.
func TestCloseLeavesABranchThatMovedOn(t *testing.T) {
	f, srv := newFake(t)
	mr := openOne(t, f, "c/op-1")
	closed, err := f.Close(context.Background(), mr)
	require.NoError(t, err)
	reused := srv.CommitFiles(testOwner, testRepo, mr.Branch, "someone else\n", map[string][]byte{"x": []byte("x")})

	again, err := f.Close(context.Background(), mr)
	require.NoError(t, err)
	assert.Equal(t, closed, again)
	assert.Equal(t, reused, srv.Ref(testOwner, testRepo, mr.Branch))
}
