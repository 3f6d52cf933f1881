package gitlab

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/testsuite/fakegitlab"
)

// hook lets a test act on a request before it reaches the fake (or instead of it).
type hook func(r *http.Request) (*http.Response, error)

func (h hook) RoundTrip(r *http.Request) (*http.Response, error) {
	if resp, err := h(r); resp != nil || err != nil {
		return resp, err
	}
	return http.DefaultTransport.RoundTrip(r)
}

var (
	updateMR     = regexp.MustCompile(`^PUT /api/v4/projects/[^/]+/merge_requests/\d+\?`)
	deleteBranch = regexp.MustCompile(`^DELETE /api/v4/projects/[^/]+/repository/branches/`)
)

// count is how many of the fake's requests match re.
func count(reqs []string, re *regexp.Regexp) int {
	n := 0
	for _, r := range reqs {
		if re.MatchString(r) {
			n++
		}
	}
	return n
}

func openChange(t *testing.T, f *Forge, branch, content string) forge.MergeRequest {
	t.Helper()
	mr, err := f.Open(context.Background(), forge.Change{Branch: branch, Title: "op", Dir: "c",
		Files: map[string][]byte{"f": []byte(content)}})
	require.NoError(t, err)
	return mr
}

func TestCloseClosesTheMRAndDeletesItsBranch(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	mr := openChange(t, f, "slipway/c/op-1", "x")
	closed, err := f.Close(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateClosed, closed.State)
	assert.Empty(t, srv.BranchHead(mr.Branch), "the branch is deleted")
	got, ok, err := f.Get(ctx, mr.Branch)
	require.NoError(t, err)
	require.True(t, ok, "GitLab keeps closed MRs findable")
	assert.Equal(t, closed, got)

	again, err := f.Close(ctx, closed)
	require.NoError(t, err)
	assert.Equal(t, closed, again)
	assert.Equal(t, 1, count(srv.Requests(), updateMR), "a closed MR is not closed again")
	assert.Equal(t, 1, count(srv.Requests(), deleteBranch), "a deleted branch is not deleted again")
}

// An MR closed by hand keeps its branch; opening the change again must not reuse that commit.
func TestOpenAfterAHandClosedMRStartsFresh(t *testing.T) {
	f, srv := newFake(t)
	ctx := context.Background()
	mr := openChange(t, f, "slipway/c/op-1", "old")
	_, _, err := f.client.MergeRequests.UpdateMergeRequest(srv.Project, 1, &gl.UpdateMergeRequestOptions{StateEvent: gl.Ptr("close")})
	require.NoError(t, err)
	require.Equal(t, mr.HeadSHA, srv.BranchHead(mr.Branch))

	reopened := openChange(t, f, mr.Branch, "new")
	assert.Equal(t, forge.StateOpen, reopened.State)
	assert.NotEqual(t, mr.ID, reopened.ID)
	files, err := f.ReadDir(ctx, reopened.HeadSHA, "c")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"f": []byte("new")}, files)
}

// Merged between Close's read and its PUT: GitLab answers 200 with the MR merged.
func TestCloseOfAnMRMergedMeanwhileIsMergedError(t *testing.T) {
	srv := fakegitlab.New()
	t.Cleanup(srv.Close)
	var f *Forge
	var mr forge.MergeRequest
	f, err := New(srv.URL, srv.Project, WithToken(srv.Token), WithHTTPClient(&http.Client{Transport: hook(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPut && !strings.HasSuffix(r.URL.Path, "/merge") {
			_, err := f.Merge(r.Context(), mr)
			require.NoError(t, err)
		}
		return nil, nil
	})}))
	require.NoError(t, err)
	mr = openChange(t, f, "slipway/c/op-1", "x")

	_, err = f.Close(context.Background(), mr)
	var me *forge.MergedError
	require.True(t, errors.As(err, &me), "want *forge.MergedError, got %v", err)
	assert.Equal(t, forge.StateMerged, me.MR.State)
	assert.NotEmpty(t, me.MR.MergeSHA)
	assert.Equal(t, mr.HeadSHA, srv.BranchHead(mr.Branch), "a merged MR keeps its branch")
}

func TestCloseWithoutChangesMakesNoCall(t *testing.T) {
	f, srv := newFake(t)
	before := len(srv.Requests())
	mr := forge.MergeRequest{Branch: "slipway/c/op-1", BaseSHA: "abc", NoChanges: true}
	got, err := f.Close(context.Background(), mr)
	require.NoError(t, err)
	assert.Equal(t, mr, got)
	assert.Len(t, srv.Requests(), before)
}
