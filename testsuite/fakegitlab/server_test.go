package fakegitlab

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gl "gitlab.com/gitlab-org/api/client-go"
)

func client(t *testing.T, s *Server, token string) *gl.Client {
	t.Helper()
	c, err := gl.NewClient(token, gl.WithBaseURL(s.URL), gl.WithoutRetries())
	require.NoError(t, err)
	return c
}

func TestUnauthorizedBody(t *testing.T) {
	s := New()
	t.Cleanup(s.Close)
	_, resp, err := client(t, s, "nope").Projects.GetProject(s.Project, nil)
	var er *gl.ErrorResponse
	require.True(t, errors.As(err, &er), "got %v", err)
	assert.Equal(t, 401, resp.StatusCode)
	assert.JSONEq(t, `{"message":"401 Unauthorized"}`, string(er.Body))
}

func TestCommitActionsAndPagination(t *testing.T) {
	s := New(WithMaxPerPage(2))
	t.Cleanup(s.Close)
	c := client(t, s, s.Token)
	create := func(p string) *gl.CommitActionOptions {
		return &gl.CommitActionOptions{Action: gl.Ptr(gl.FileCreate), FilePath: gl.Ptr(p), Content: gl.Ptr("x")}
	}
	commit, _, err := c.Commits.CreateCommit(s.Project, &gl.CreateCommitOptions{Branch: gl.Ptr("b"),
		StartBranch: gl.Ptr("main"), CommitMessage: gl.Ptr("m"), Actions: []*gl.CommitActionOptions{create("d/1"), create("d/2"), create("d/3")}})
	require.NoError(t, err)
	assert.Equal(t, []string{s.BranchHead("main")}, commit.ParentIDs)

	_, resp, err := c.Commits.CreateCommit(s.Project, &gl.CreateCommitOptions{Branch: gl.Ptr("b"),
		CommitMessage: gl.Ptr("m"), Actions: []*gl.CommitActionOptions{create("d/1")}})
	require.Error(t, err)
	assert.Equal(t, 400, resp.StatusCode, "creating an existing file is refused")

	nodes, resp, err := c.Repositories.ListTree(s.Project, &gl.ListTreeOptions{Ref: gl.Ptr("b"), Path: gl.Ptr("d"),
		Recursive: gl.Ptr(true), ListOptions: gl.ListOptions{PerPage: 100}})
	require.NoError(t, err)
	assert.Len(t, nodes, 2)
	assert.EqualValues(t, 2, resp.NextPage)
	assert.EqualValues(t, 2, resp.TotalPages)
	assert.Equal(t, "d/1", nodes[0].Path)
}

func TestConflictingMergeIs422(t *testing.T) {
	s := New()
	t.Cleanup(s.Close)
	c := client(t, s, s.Token)
	s.Push("a", "a", map[string][]byte{"f": []byte("a")})
	s.Push("main", "main", map[string][]byte{"f": []byte("main")})
	mr, _, err := c.MergeRequests.CreateMergeRequest(s.Project, &gl.CreateMergeRequestOptions{
		SourceBranch: gl.Ptr("a"), TargetBranch: gl.Ptr("main"), Title: gl.Ptr("t")})
	require.NoError(t, err)
	assert.True(t, mr.HasConflicts)
	assert.Equal(t, "conflict", mr.DetailedMergeStatus)
	_, resp, err := c.MergeRequests.AcceptMergeRequest(s.Project, mr.IID, nil)
	require.Error(t, err)
	assert.Equal(t, 422, resp.StatusCode)
	assert.Equal(t, "opened", func() string { m, _, _ := c.MergeRequests.GetMergeRequest(s.Project, mr.IID, nil); return m.State }())
}

func TestCloseMergeRequestAndDeleteItsBranch(t *testing.T) {
	s := New()
	t.Cleanup(s.Close)
	c := client(t, s, s.Token)
	head := s.Push("a", "a", map[string][]byte{"f": []byte("a")})
	mr, _, err := c.MergeRequests.CreateMergeRequest(s.Project, &gl.CreateMergeRequestOptions{
		SourceBranch: gl.Ptr("a"), TargetBranch: gl.Ptr("main"), Title: gl.Ptr("t")})
	require.NoError(t, err)

	closed, _, err := c.MergeRequests.UpdateMergeRequest(s.Project, mr.IID, &gl.UpdateMergeRequestOptions{StateEvent: gl.Ptr("close")})
	require.NoError(t, err)
	assert.Equal(t, "closed", closed.State)
	resp, err := c.Branches.DeleteBranch(s.Project, "a")
	require.NoError(t, err)
	assert.Equal(t, 204, resp.StatusCode)
	resp, err = c.Branches.DeleteBranch(s.Project, "a")
	require.Error(t, err)
	assert.Equal(t, 404, resp.StatusCode, "a branch already gone")
	got, _, err := c.MergeRequests.GetMergeRequest(s.Project, mr.IID, nil)
	require.NoError(t, err)
	assert.Equal(t, head, got.SHA, "a closed MR keeps its head after the branch is gone")

	resp, err = c.Branches.DeleteBranch(s.Project, "main")
	require.Error(t, err)
	assert.Equal(t, 405, resp.StatusCode, "the default branch is never deleted")
	_, resp, err = c.MergeRequests.UpdateMergeRequest(s.Project, mr.IID, &gl.UpdateMergeRequestOptions{StateEvent: gl.Ptr("reopen")})
	require.Error(t, err)
	assert.Equal(t, 400, resp.StatusCode, "reopen is not modelled")
}

// GitLab's close transition does not leave "merged": the answer is 200 with the MR unchanged.
func TestClosingAMergedMergeRequestLeavesItMerged(t *testing.T) {
	s := New()
	t.Cleanup(s.Close)
	c := client(t, s, s.Token)
	s.Push("a", "a", map[string][]byte{"f": []byte("a")})
	mr, _, err := c.MergeRequests.CreateMergeRequest(s.Project, &gl.CreateMergeRequestOptions{
		SourceBranch: gl.Ptr("a"), TargetBranch: gl.Ptr("main"), Title: gl.Ptr("t")})
	require.NoError(t, err)
	_, _, err = c.MergeRequests.AcceptMergeRequest(s.Project, mr.IID, nil)
	require.NoError(t, err)

	got, _, err := c.MergeRequests.UpdateMergeRequest(s.Project, mr.IID, &gl.UpdateMergeRequestOptions{StateEvent: gl.Ptr("close")})
	require.NoError(t, err)
	assert.Equal(t, "merged", got.State)
}
