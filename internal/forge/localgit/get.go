package localgit

import (
	"context"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Get returns the MR of branch; ok is false when the branch does not exist.
func (f *Forge) Get(ctx context.Context, branch string) (forge.MergeRequest, bool, error) {
	if err := f.checkBranch(ctx, branch); err != nil {
		return forge.MergeRequest{}, false, err
	}
	b, ok, err := f.git.readBranch(ctx, branch)
	if err != nil || !ok {
		return forge.MergeRequest{}, false, err
	}
	mr, err := f.describe(ctx, b)
	return mr, err == nil, err
}
