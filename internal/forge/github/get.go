package github

import (
	"context"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Get returns the pull request of branch: the open one, else the last merged one. Closed,
// unmerged PRs do not count (a later Open may open a new one). ok is false when there is none.
func (f *Forge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	if err := forge.CheckBranch(branch, f.base); err != nil {
		return forge.MergeRequest{}, false, err
	}
	pr, err := f.findPull(ctx, branch)
	if err != nil || pr == nil {
		return forge.MergeRequest{}, false, err
	}
	mr, err := f.toMR(ctx, pr)
	return mr, err == nil, err
}

func (f *Forge) findPull(ctx context.Context, branch string) (*gh.PullRequest, error) {
	prs, err := f.pullsFor(ctx, branch)
	if err != nil {
		return nil, err
	}
	var merged *gh.PullRequest
	for _, pr := range prs {
		switch {
		case pr.GetHead().GetRef() != branch:
		case pr.GetState() == "open":
			return pr, nil
		case pr.MergedAt != nil || pr.GetMerged():
			merged = pr
		}
	}
	return merged, nil
}
