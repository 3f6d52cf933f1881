package gitlab

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
)

var _ forge.Reporter = (*Forge)(nil)

// glState maps slipway's states to GitLab's; GitLab has one failed state for both failures.
var glState = map[forge.StatusState]gl.BuildStateValue{forge.StatusPending: gl.Pending,
	forge.StatusSuccess: gl.Success, forge.StatusFailure: gl.Failed, forge.StatusError: gl.Failed}

// SetStatus sets the external status named s.Context on commit sha. GitLab moves a pending
// status of that name to the new state, or starts a new one that replaces the finished one.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.CommitStatus) error {
	sha, err := forge.CheckStatus(sha, s)
	if err != nil {
		return err
	}
	opt := &gl.SetCommitStatusOptions{State: glState[s.State], Name: gl.Ptr(s.Context)}
	if s.Description != "" {
		opt.Description = gl.Ptr(s.Description)
	}
	if s.TargetURL != "" {
		opt.TargetURL = gl.Ptr(s.TargetURL)
	}
	_, resp, err := f.client.Commits.SetCommitStatus(f.project, sha, opt, gl.WithContext(ctx))
	if err == nil {
		return nil
	}
	if status(resp) == http.StatusBadRequest && strings.Contains(err.Error(), "Cannot transition status via") {
		// Pending again while pending: GitLab refuses the transition but the state is as asked
		// (a new description or URL is lost: GitLab cannot change a pending status's text).
		return nil
	}
	return f.translate("set status "+s.Context+" on "+sha, "commit "+sha, resp, err)
}

// Comment posts body as a note on merge request !mr.ID unless a note already carries key's
// marker. Two concurrent calls with one key may both post: GitLab has no conditional create.
func (f *Forge) Comment(ctx context.Context, mr forge.MergeRequest, key, body string) error {
	if err := forge.CheckComment(mr, key, body); err != nil {
		return err
	}
	iid, err := strconv.ParseInt(mr.ID, 10, 64)
	if err != nil || iid < 1 {
		return &forge.InvalidError{Field: "mr.ID", Value: mr.ID, Problem: "must be a merge request IID"}
	}
	what := "merge request !" + mr.ID
	mark := forge.CommentMarker(key)
	opt := &gl.ListMergeRequestNotesOptions{ListOptions: gl.ListOptions{PerPage: 100, Page: 1}}
	for {
		notes, resp, err := f.client.Notes.ListMergeRequestNotes(f.project, iid, opt, gl.WithContext(ctx))
		if err != nil {
			return f.translate("list notes of "+what, what, resp, err)
		}
		for _, n := range notes {
			if strings.Contains(n.Body, mark) {
				return nil
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	_, resp, err := f.client.Notes.CreateMergeRequestNote(f.project, iid,
		&gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(forge.WithMarker(body, key))}, gl.WithContext(ctx))
	return f.translate("comment on "+what, what, resp, err)
}
