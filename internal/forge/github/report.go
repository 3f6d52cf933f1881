package github

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.Reporter = (*Forge)(nil)

// maxDescription is GitHub's limit on a status description; a longer one is a 422.
const maxDescription = 140

// SetStatus posts s on commit sha; GitHub shows the latest status of each context.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.CommitStatus) error {
	sha, err := forge.CheckStatus(sha, s)
	if err != nil {
		return err
	}
	st := &gh.RepoStatus{State: gh.String(string(s.State)), Context: gh.String(s.Context)}
	if d := []rune(s.Description); len(d) > 0 {
		st.Description = gh.String(string(d[:min(len(d), maxDescription)]))
	}
	if s.TargetURL != "" {
		st.TargetURL = gh.String(s.TargetURL)
	}
	_, _, err = f.client.Repositories.CreateStatus(ctx, f.owner, f.repo, sha, st)
	switch {
	case err == nil:
		return nil
	case statusOf(err) == http.StatusUnprocessableEntity && strings.Contains(err.Error(), "No commit found"):
		return &forge.NotFoundError{What: "commit " + sha + " in github repository " + f.fullName()}
	}
	return f.classify("set status "+s.Context+" on "+sha, err)
}

// Comment posts body on pull request #mr.ID unless a comment already carries key's marker.
// Two concurrent calls with one key may both post: GitHub has no conditional create.
func (f *Forge) Comment(ctx context.Context, mr forge.MergeRequest, key, body string) error {
	if err := forge.CheckComment(mr, key, body); err != nil {
		return err
	}
	n, err := strconv.Atoi(mr.ID)
	if err != nil || n < 1 {
		return &forge.InvalidError{Field: "mr.ID", Value: mr.ID, Problem: "must be a pull request number"}
	}
	mark := forge.CommentMarker(key)
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: f.pageSize}}
	for {
		page, resp, err := f.client.Issues.ListComments(ctx, f.owner, f.repo, n, opts)
		if err != nil {
			return f.commentErr("list comments of", mr.ID, err)
		}
		for _, c := range page {
			if strings.Contains(c.GetBody(), mark) {
				return nil
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	_, _, err = f.client.Issues.CreateComment(ctx, f.owner, f.repo, n, &gh.IssueComment{Body: gh.String(forge.WithMarker(body, key))})
	if err != nil {
		return f.commentErr("comment on", mr.ID, err)
	}
	return nil
}

func (f *Forge) commentErr(op, id string, err error) error {
	if statusOf(err) == http.StatusNotFound {
		return &forge.NotFoundError{What: "pull request #" + id + " in github repository " + f.fullName()}
	}
	return f.classify(op+" pull request #"+id, err)
}
