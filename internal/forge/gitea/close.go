package gitea

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Close closes an open PR without merging it (PATCH state "closed") and deletes its branch. A
// closed PR is returned closed (its branch deleted if still there); a merged one is a
// *forge.MergedError. Get still finds it afterwards, as closed; Open of the same change then
// opens a new PR on the next branch name (orphan.go), never on the closed PR's own.
func (f *Forge) Close(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if mr.NoChanges {
		return mr, nil
	}
	pr, err := f.findPR(ctx, mr)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if !pr.HasMerged && pr.State != sdk.StateClosed {
		closed := sdk.StateClosed
		edited, resp, err := f.client(ctx).EditPullRequest(f.owner, f.repo, pr.Index, sdk.EditPullRequestOption{State: &closed})
		refused := resp != nil && resp.Response != nil &&
			(resp.StatusCode == http.StatusPreconditionFailed || resp.StatusCode == http.StatusConflict)
		switch {
		case err == nil && edited.Head != nil:
			pr = edited
		case err == nil || refused:
			// Gitea refuses to change a merged PR's state (412): merged since we read it.
			if pr, err = f.getPR(ctx, pr.Index, headBranch(pr)); err != nil {
				return forge.MergeRequest{}, err
			}
		default:
			return forge.MergeRequest{}, classify("close pull request #"+strconv.FormatInt(pr.Index, 10), f.repoWhat(), resp, err)
		}
	}
	out, err := f.toMR(ctx, pr)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if err := forge.CheckClosed(out, "gitea: close pull request #"+out.ID); err != nil {
		return forge.MergeRequest{}, err
	}
	if err := f.deleteBranch(ctx, pr); err != nil {
		return forge.MergeRequest{}, err
	}
	return out, nil
}

// deleteBranch deletes a closed PR's branch unless it moved since the PR was read (Gitea shows
// a closed PR's head as its branch's, so this guards only that window). Gone already is fine.
func (f *Forge) deleteBranch(ctx context.Context, pr *sdk.PullRequest) error {
	branch := headBranch(pr)
	cl := f.client(ctx)
	b, resp, err := cl.GetRepoBranch(f.owner, f.repo, branch)
	switch {
	case resp != nil && resp.Response != nil && resp.StatusCode == http.StatusNotFound:
		return nil
	case err != nil:
		return classify("get branch "+branch, f.repoWhat(), resp, err)
	case b.Commit == nil || b.Commit.ID != pr.Head.Sha:
		return nil
	}
	// The SDK reports any HTTP answer as success, so the status decides; 404: a racing Close won.
	deleted, resp, err := cl.DeleteRepoBranch(f.owner, f.repo, branch)
	switch {
	case err != nil:
		return classify("delete branch "+branch, f.repoWhat(), resp, err)
	case deleted || resp.StatusCode == http.StatusNotFound:
		return nil
	}
	return classifyStatus("delete branch "+branch, "", resp.StatusCode, resp.Header, errors.New(resp.Status))
}
