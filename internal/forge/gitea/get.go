package gitea

import (
	"context"
	"net/http"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Get finds the PR (open, merged or closed) of branch: on branch itself, or on the next of
// its candidates when a lost request orphaned the earlier ones (orphan.go).
func (f *Forge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	if err := forge.CheckRefName("branch", branch); err != nil {
		return forge.MergeRequest{}, false, err
	}
	for _, b := range branchCandidates(branch) {
		mr, ok, err := f.getOne(ctx, b)
		if err != nil || ok {
			return mr, ok, err
		}
		if state, err := f.branchState(ctx, b); err != nil || state != branchOrphaned {
			return forge.MergeRequest{}, false, err
		}
	}
	return forge.MergeRequest{}, false, nil
}

// getOne finds the PR whose head is exactly branch.
func (f *Forge) getOne(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	pr, resp, err := f.client(ctx).GetPullRequestByBaseHead(f.owner, f.repo, f.cfg.base, branch)
	if err != nil {
		if resp != nil && resp.Response != nil && resp.StatusCode == http.StatusNotFound {
			return forge.MergeRequest{}, false, nil
		}
		return forge.MergeRequest{}, false, classify("get pull request", "", resp, err)
	}
	mr, err := f.toMR(ctx, pr)
	if err != nil {
		return forge.MergeRequest{}, false, err
	}
	return mr, true, nil
}
