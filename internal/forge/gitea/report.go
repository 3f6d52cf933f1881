package gitea

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.Reporter = (*Forge)(nil)

// SetStatus posts s on commit sha; Gitea shows the latest status of each context.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.CommitStatus) error {
	sha, err := forge.CheckStatus(sha, s)
	if err != nil {
		return err
	}
	c := f.client(ctx)
	what := "commit " + sha + " in " + f.repoWhat()
	_, resp, err := c.CreateStatus(f.owner, f.repo, sha, sdk.CreateStatusOption{
		State: sdk.StatusState(s.State), Context: s.Context, Description: s.Description, TargetURL: s.TargetURL})
	if missing(resp, func() *sdk.Response { _, r, _ := c.GetSingleCommit(f.owner, f.repo, sha); return r }) {
		return &forge.NotFoundError{What: what}
	}
	return classify("set status "+s.Context+" on "+sha, what, resp, err)
}

// Comment posts body on pull request #mr.ID unless a comment already carries key's marker.
// Two concurrent calls with one key may both post: Gitea has no conditional create.
func (f *Forge) Comment(ctx context.Context, mr forge.MergeRequest, key, body string) error {
	if err := forge.CheckComment(mr, key, body); err != nil {
		return err
	}
	index, err := strconv.ParseInt(mr.ID, 10, 64)
	if err != nil || index < 1 {
		return &forge.InvalidError{Field: "mr.ID", Value: mr.ID, Problem: "must be a pull request number"}
	}
	what := "pull request #" + mr.ID + " in " + f.repoWhat()
	c := f.client(ctx)
	mark := forge.CommentMarker(key)
	for page := 1; page > 0; {
		batch, resp, err := c.ListIssueComments(f.owner, f.repo, index, sdk.ListIssueCommentOptions{
			ListOptions: sdk.ListOptions{Page: page, PageSize: listPageSize}})
		if err != nil {
			if missing(resp, func() *sdk.Response { _, r, _ := c.GetPullRequest(f.owner, f.repo, index); return r }) {
				return &forge.NotFoundError{What: what}
			}
			return classify("list comments of pull request #"+mr.ID, what, resp, err)
		}
		for _, cm := range batch {
			if strings.Contains(cm.Body, mark) {
				return nil
			}
		}
		page = resp.NextPage
		if len(batch) == 0 {
			break // a server that ignores paging must not loop forever
		}
	}
	_, resp, err := c.CreateIssueComment(f.owner, f.repo, index, sdk.CreateIssueCommentOption{Body: forge.WithMarker(body, key)})
	return classify("comment on pull request #"+mr.ID, what, resp, err)
}

// missing tells whether a failed call's 5xx means the object is absent: Gitea answers 500,
// not 404, for a commit or issue it lacks, so probe asks for the object itself.
func missing(resp *sdk.Response, probe func() *sdk.Response) bool {
	if resp == nil || resp.Response == nil || resp.StatusCode < http.StatusInternalServerError {
		return false
	}
	r := probe()
	return r != nil && r.Response != nil && r.StatusCode == http.StatusNotFound
}
