package gitea

import (
	"context"
	"net/http"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Get finds the PR (open, merged or closed) whose head is branch.
func (f *Forge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	if err := forge.CheckRefName("branch", branch); err != nil {
		return forge.MergeRequest{}, false, err
	}
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
