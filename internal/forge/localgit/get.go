package localgit

import (
	"context"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Get returns the MR of branch: the branch itself (open or merged), else the record of its
// closed MR (close.go); ok is false when there is neither.
func (f *Forge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	if err := f.checkBranch(ctx, branch); err != nil {
		return forge.MergeRequest{}, false, err
	}
	b, ok, err := f.git.readBranch(ctx, branch)
	if err != nil {
		return forge.MergeRequest{}, false, err
	}
	if ok {
		mr, err := f.describe(ctx, b)
		return mr, err == nil, err
	}
	rec, ok, err := f.git.readRef(ctx, closedNS, branch)
	if err != nil || !ok {
		return forge.MergeRequest{}, false, err
	}
	mr, err := f.describeClosed(ctx, rec)
	return mr, err == nil, err
}
