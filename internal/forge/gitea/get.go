package gitea

import (
	"context"
	"net/http"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Get finds the PR (open, merged or closed) of branch: on branch itself, or on the next of
// its candidates when a lost request orphaned the earlier ones or their PR was closed and the
// change opened again (orphan.go). The last closed PR is the answer when nothing newer is open
// or merged.
func (f *Forge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	if err := forge.CheckRefName("branch", branch); err != nil {
		return forge.MergeRequest{}, false, err
	}
	var closed forge.MergeRequest
	found := false
	for _, b := range branchCandidates(branch) {
		mr, ok, err := f.getOne(ctx, b)
		switch {
		case err != nil:
			return forge.MergeRequest{}, false, err
		case ok && mr.State != forge.StateClosed:
			return mr, true, nil
		case ok:
			closed, found = mr, true
			continue
		}
		state, err := f.branchState(ctx, b)
		if err != nil {
			return forge.MergeRequest{}, false, err
		}
		if state != branchOrphaned {
			break
		}
	}
	return closed, found, nil
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
