package github

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Close closes mr's pull request without merging it (PATCH state=closed) and deletes its
// branch. A closed PR is returned closed (its branch deleted if still there); a merged one is
// a *forge.MergedError. Get skips closed PRs, so afterwards it reports none for the branch.
func (f *Forge) Close(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if mr.NoChanges {
		return mr, nil
	}
	pr, err := f.closeTarget(ctx, mr)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	n := pr.GetNumber()
	if pr.GetState() != "closed" {
		edited, _, err := f.client.PullRequests.Edit(ctx, f.owner, f.repo, n, &gh.PullRequest{State: gh.String("closed")})
		if err != nil {
			// 422 is GitHub refusing to change a merged PR's state: merged since we read it.
			if statusOf(err) != http.StatusUnprocessableEntity {
				return forge.MergeRequest{}, f.classify("close pull request #"+strconv.Itoa(n), err)
			}
			if edited, _, err = f.client.PullRequests.Get(ctx, f.owner, f.repo, n); err != nil {
				return forge.MergeRequest{}, f.classify("get pull request #"+strconv.Itoa(n), err)
			}
		}
		pr = edited
	}
	out, err := f.toMR(ctx, pr)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if err := forge.CheckClosed(out, "github: close pull request #"+strconv.Itoa(n)); err != nil {
		return forge.MergeRequest{}, err
	}
	if err := f.deleteBranch(ctx, pr); err != nil {
		return forge.MergeRequest{}, err
	}
	return out, nil
}

// closeTarget is pullOf, except that by branch a closed PR counts too (the newest), so a
// retry that holds only the branch finds the PR it closed.
func (f *Forge) closeTarget(ctx context.Context, mr forge.MergeRequest) (*gh.PullRequest, error) {
	if n, err := strconv.Atoi(mr.ID); err == nil && n > 0 {
		return f.pullOf(ctx, mr)
	}
	if err := forge.CheckBranch(mr.Branch, f.base); err != nil {
		return nil, err
	}
	pr, err := f.findPull(ctx, mr.Branch)
	if err != nil || pr != nil {
		return pr, err
	}
	prs, err := f.pullsFor(ctx, mr.Branch)
	if err != nil {
		return nil, err
	}
	for i := len(prs) - 1; i >= 0; i-- { // oldest first, so the newest closed one is last
		if prs[i].GetHead().GetRef() == mr.Branch {
			return prs[i], nil
		}
	}
	return nil, &forge.NotFoundError{What: "pull request for branch " + mr.Branch + " in github repository " + f.fullName()}
}

// deleteBranch deletes a closed PR's branch while it still holds the PR's head: a branch that
// moved on belongs to a newer PR opened on the same name (or to a fork). Gone already is fine.
func (f *Forge) deleteBranch(ctx context.Context, pr *gh.PullRequest) error {
	branch := pr.GetHead().GetRef()
	if !strings.EqualFold(pr.GetHead().GetRepo().GetFullName(), f.fullName()) {
		return nil
	}
	tip, ok, err := f.branchHead(ctx, branch)
	if err != nil || !ok || tip != pr.GetHead().GetSHA() {
		return err
	}
	_, err = f.client.Git.DeleteRef(ctx, f.owner, f.repo, "heads/"+branch)
	if err != nil && statusOf(err) == http.StatusUnprocessableEntity && strings.Contains(err.Error(), "Reference does not exist") {
		return nil // a racing Close deleted it first
	}
	if err != nil {
		return f.classify("delete branch "+branch, err)
	}
	return nil
}
