package fakegithub

import (
	"context"
	"errors"
	"net/http"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateStatusAnswersLikeGitHub(t *testing.T) {
	s := New(t)
	sha := s.AddRepo("o", "r", "main")
	c := client(t, s)
	ctx := context.Background()

	st, resp, err := c.Repositories.CreateStatus(ctx, "o", "r", sha, &gh.RepoStatus{State: gh.String("pending"),
		Context: gh.String("ci"), Description: gh.String("d"), TargetURL: gh.String("https://x/1")})
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "pending", st.GetState())
	_, _, err = c.Repositories.CreateStatus(ctx, "o", "r", sha, &gh.RepoStatus{State: gh.String("success"), Context: gh.String("ci")})
	require.NoError(t, err)
	_, _, err = c.Repositories.CreateStatus(ctx, "o", "r", sha, &gh.RepoStatus{State: gh.String("failure")})
	require.NoError(t, err)
	assert.Equal(t, []Status{{State: "success", Context: "ci"}, {State: "failure", Context: "default"}}, s.Statuses("o", "r", sha))
	assert.Equal(t, 3, s.StatusCount("o", "r", sha))

	_, _, err = c.Repositories.CreateStatus(ctx, "o", "r", sha, &gh.RepoStatus{State: gh.String("running")})
	var er *gh.ErrorResponse
	require.True(t, errors.As(err, &er), "got %v", err)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
	assert.Equal(t, "Validation Failed", er.Message)
	require.Len(t, er.Errors, 1)
	assert.Equal(t, "state", er.Errors[0].Field)

	_, _, err = c.Repositories.CreateStatus(ctx, "o", "r", "0123456789012345678901234567890123456789", &gh.RepoStatus{State: gh.String("success")})
	require.True(t, errors.As(err, &er), "got %v", err)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
	assert.Contains(t, er.Message, "No commit found for SHA")

	_, resp, err = c.Repositories.CreateStatus(ctx, "o", "nope", sha, &gh.RepoStatus{State: gh.String("success")})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestIssueCommentsPaginateWithLink(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	s.CommitFiles("o", "r", "feature", "f\n", map[string][]byte{"f": []byte("f")})
	c := client(t, s)
	ctx := context.Background()
	_, _, err := c.PullRequests.Create(ctx, "o", "r", &gh.NewPullRequest{Title: gh.String("t"), Head: gh.String("feature"), Base: gh.String("main")})
	require.NoError(t, err)
	for _, body := range []string{"one", "two", "three"} {
		cm, resp, err := c.Issues.CreateComment(ctx, "o", "r", 1, &gh.IssueComment{Body: gh.String(body)})
		require.NoError(t, err)
		assert.Equal(t, http.StatusCreated, resp.StatusCode)
		assert.Equal(t, body, cm.GetBody())
	}
	var got []string
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 2}}
	pages := 0
	for {
		page, resp, err := c.Issues.ListComments(ctx, "o", "r", 1, opts)
		require.NoError(t, err)
		pages++
		for _, cm := range page {
			got = append(got, cm.GetBody())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	assert.Equal(t, []string{"one", "two", "three"}, got)
	assert.Equal(t, 2, pages)
	assert.Equal(t, got, s.Comments("o", "r", 1))

	_, resp, err := c.Issues.CreateComment(ctx, "o", "r", 2, &gh.IssueComment{Body: gh.String("x")})
	require.Error(t, err)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	_, resp, err = c.Issues.CreateComment(ctx, "o", "r", 1, &gh.IssueComment{})
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
}
