package fakegithub

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func client(t *testing.T, s *Server) *gh.Client {
	t.Helper()
	c := gh.NewClient(nil).WithAuthToken(s.Token)
	u, err := url.Parse(s.URL)
	require.NoError(t, err)
	c.BaseURL = u
	return c
}

func TestRequiresTheBearerToken(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	for name, auth := range map[string]string{"none": "", "wrong": "Bearer nope", "scheme": "Basic " + s.Token} {
		req, err := http.NewRequest(http.MethodGet, s.URL+"repos/o/r/git/ref/heads/main", nil)
		require.NoError(t, err)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body struct {
			Message          string
			DocumentationURL string `json:"documentation_url"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
		assert.Equal(t, "Bad credentials", body.Message, name)
		assert.NotEmpty(t, body.DocumentationURL, name)
	}
	ref, _, err := client(t, s).Git.GetRef(context.Background(), "o", "r", "heads/main")
	require.NoError(t, err)
	assert.Equal(t, s.Ref("o", "r", "main"), ref.GetObject().GetSHA())
}

// The fake's object IDs are git's: the same files give the same tree as `git write-tree`.
func TestTreeSHAsMatchGit(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	files := map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "dir/sub/c.txt": "c\n", "dir.txt": "d\n"}
	var entries []*gh.TreeEntry
	dir := t.TempDir()
	for p, content := range files {
		entries = append(entries, &gh.TreeEntry{Path: gh.String(p), Mode: gh.String("100644"), Type: gh.String("blob"), Content: gh.String(content)})
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644))
	}
	tree, _, err := client(t, s).Git.CreateTree(context.Background(), "o", "r", "", entries)
	require.NoError(t, err)

	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	assert.Equal(t, git("write-tree"), tree.GetSHA())
}

func TestPullsPaginateWithLinkHeaders(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	c, ctx := client(t, s), context.Background()
	for _, b := range []string{"b1", "b2", "b3"} {
		s.CommitFiles("o", "r", b, b, map[string][]byte{b: []byte(b)})
	}
	for _, b := range []string{"b1", "b2", "b3"} {
		_, _, err := c.PullRequests.Create(ctx, "o", "r", &gh.NewPullRequest{Title: gh.String(b), Head: gh.String(b), Base: gh.String("main")})
		require.NoError(t, err, b)
	}
	_, _, err := c.PullRequests.Create(ctx, "o", "r", &gh.NewPullRequest{Title: gh.String("again"), Head: gh.String("b1"), Base: gh.String("main")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "A pull request already exists for o:b1")

	opts := &gh.PullRequestListOptions{Direction: "asc", ListOptions: gh.ListOptions{PerPage: 2}}
	page1, resp, err := c.PullRequests.List(ctx, "o", "r", opts)
	require.NoError(t, err)
	assert.Equal(t, []string{"b1", "b2"}, []string{page1[0].GetHead().GetRef(), page1[1].GetHead().GetRef()})
	assert.Equal(t, 2, resp.NextPage)
	assert.Equal(t, 2, resp.LastPage)
	opts.Page = resp.NextPage
	page2, resp, err := c.PullRequests.List(ctx, "o", "r", opts)
	require.NoError(t, err)
	require.Len(t, page2, 1)
	assert.Equal(t, "b3", page2[0].GetHead().GetRef())
	assert.Zero(t, resp.NextPage)
}

func TestRefAlreadyExists(t *testing.T) {
	s := New(t)
	head := s.AddRepo("o", "r", "main")
	_, resp, err := client(t, s).Git.CreateRef(context.Background(), "o", "r",
		&gh.Reference{Ref: gh.String("refs/heads/main"), Object: &gh.GitObject{SHA: gh.String(head)}})
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	assert.Contains(t, err.Error(), "Reference already exists")
}

func TestClosePullAndDeleteItsRef(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	c, ctx := client(t, s), context.Background()
	head := s.CommitFiles("o", "r", "b", "b", map[string][]byte{"b": []byte("b")})
	_, _, err := c.PullRequests.Create(ctx, "o", "r", &gh.NewPullRequest{Title: gh.String("b"), Head: gh.String("b"), Base: gh.String("main")})
	require.NoError(t, err)

	closed, _, err := c.PullRequests.Edit(ctx, "o", "r", 1, &gh.PullRequest{State: gh.String("closed")})
	require.NoError(t, err)
	assert.Equal(t, "closed", closed.GetState())
	assert.False(t, closed.GetMerged())
	_, err = c.Git.DeleteRef(ctx, "o", "r", "heads/b")
	require.NoError(t, err)
	_, err = c.Git.DeleteRef(ctx, "o", "r", "heads/b")
	var er *gh.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
	assert.Equal(t, "Reference does not exist", er.Message)
	got, _, err := c.PullRequests.Get(ctx, "o", "r", 1)
	require.NoError(t, err)
	assert.Equal(t, head, got.GetHead().GetSHA(), "a closed PR keeps its head after the branch is gone")
	again, _, err := c.PullRequests.Edit(ctx, "o", "r", 1, &gh.PullRequest{State: gh.String("closed")})
	require.NoError(t, err, "closing a closed PR changes nothing")
	assert.Equal(t, "closed", again.GetState())
}

func TestClosingAMergedPullIsValidationFailed(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	c, ctx := client(t, s), context.Background()
	s.CommitFiles("o", "r", "b", "b", map[string][]byte{"b": []byte("b")})
	_, _, err := c.PullRequests.Create(ctx, "o", "r", &gh.NewPullRequest{Title: gh.String("b"), Head: gh.String("b"), Base: gh.String("main")})
	require.NoError(t, err)
	_, _, err = c.PullRequests.Merge(ctx, "o", "r", 1, "", nil)
	require.NoError(t, err)

	_, _, err = c.PullRequests.Edit(ctx, "o", "r", 1, &gh.PullRequest{State: gh.String("closed")})
	var er *gh.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, http.StatusUnprocessableEntity, er.Response.StatusCode)
	assert.Equal(t, "Validation Failed", er.Message)
	got, _, err := c.PullRequests.Get(ctx, "o", "r", 1)
	require.NoError(t, err)
	assert.True(t, got.GetMerged())
}
