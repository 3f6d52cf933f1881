package fakegitlab

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gl "gitlab.com/gitlab-org/api/client-go"
)

func TestCommitStatusFollowsGitLabsStateMachine(t *testing.T) {
	s := New()
	t.Cleanup(s.Close)
	c := client(t, s, s.Token)
	sha := s.BranchHead("main")
	set := func(state gl.BuildStateValue) (*gl.Response, error) {
		_, resp, err := c.Commits.SetCommitStatus(s.Project, sha, &gl.SetCommitStatusOptions{State: state, Name: gl.Ptr("ci")})
		return resp, err
	}
	resp, err := set(gl.Pending)
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)

	resp, err = set(gl.Pending)
	var er *gl.ErrorResponse
	require.True(t, errors.As(err, &er), "got %v", err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(er.Body), "Cannot transition status via :enqueue from :pending")

	_, err = set(gl.Success) // moves the pending status
	require.NoError(t, err)
	assert.Equal(t, 1, s.StatusCount(sha))
	_, err = set(gl.Failed) // success is final: a new status replaces it
	require.NoError(t, err)
	assert.Equal(t, 2, s.StatusCount(sha))
	assert.Equal(t, []CommitStatus{{Name: "ci", State: "failed"}}, s.Statuses(sha))

	resp, err = set("bogus")
	require.True(t, errors.As(err, &er), "got %v", err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.JSONEq(t, `{"error":"state does not have a valid value"}`, string(er.Body))

	_, resp, err = c.Commits.SetCommitStatus(s.Project, "0123456789012345678901234567890123456789", &gl.SetCommitStatusOptions{State: gl.Success})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	req, err := http.NewRequest(http.MethodPost, s.URL+"/api/v4/projects/1/statuses/"+strings.Repeat("0", 40), strings.NewReader(`{"state":"success"}`))
	require.NoError(t, err)
	req.Header.Set("PRIVATE-TOKEN", s.Token)
	raw, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer raw.Body.Close()
	body, err := io.ReadAll(raw.Body)
	require.NoError(t, err)
	assert.JSONEq(t, `{"message":"404 Commit Not Found"}`, string(body))
}

func TestMergeRequestNotesPaginate(t *testing.T) {
	s := New(WithMaxPerPage(2))
	t.Cleanup(s.Close)
	c := client(t, s, s.Token)
	s.Push("feature", "f", map[string][]byte{"f": []byte("f")})
	_, _, err := c.MergeRequests.CreateMergeRequest(s.Project, &gl.CreateMergeRequestOptions{SourceBranch: gl.Ptr("feature"),
		TargetBranch: gl.Ptr("main"), Title: gl.Ptr("t")})
	require.NoError(t, err)
	for _, body := range []string{"one", "two", "three"} {
		n, resp, err := c.Notes.CreateMergeRequestNote(s.Project, 1, &gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(body)})
		require.NoError(t, err)
		assert.Equal(t, http.StatusCreated, resp.StatusCode)
		assert.Equal(t, body, n.Body)
	}
	var got []string
	opt := &gl.ListMergeRequestNotesOptions{ListOptions: gl.ListOptions{PerPage: 100, Page: 1}}
	for {
		notes, resp, err := c.Notes.ListMergeRequestNotes(s.Project, 1, opt)
		require.NoError(t, err)
		assert.EqualValues(t, 2, resp.TotalPages)
		for _, n := range notes {
			got = append(got, n.Body)
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	assert.Equal(t, []string{"three", "two", "one"}, got, "newest first, GitLab's default")
	assert.Equal(t, []string{"one", "two", "three"}, s.Notes(1))

	_, resp, err := c.Notes.CreateMergeRequestNote(s.Project, 2, &gl.CreateMergeRequestNoteOptions{Body: gl.Ptr("x")})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, resp, err = c.Notes.CreateMergeRequestNote(s.Project, 1, &gl.CreateMergeRequestNoteOptions{})
	require.Error(t, err)
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
}
