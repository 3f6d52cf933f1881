package activities

import (
	"context"
	"fmt"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
)

// OpenMergeRequest renders the instance (or removes it) and opens one MR on the
// operation's branch. A retry finds the branch and opens nothing new.
func (a *Activities) OpenMergeRequest(ctx context.Context, in contract.OpenMRInput) (forge.MergeRequest, error) {
	if err := a.fence(ctx); err != nil {
		return forge.MergeRequest{}, err
	}
	branch := contract.BranchFor(in.Ref, in.Operation, in.OpID)
	if in.ConfigYAML == "" && in.Rerender != "" {
		// A plain deploy: when main already holds the render (the stack has not changed), there is
		// nothing to open, and the forge is not asked (it may be down, with main read from a mirror).
		files, err := a.rerender(ctx, in.Ref, in.Rerender)
		if err != nil {
			return forge.MergeRequest{}, err
		}
		held, err := a.Forge.ReadDir(ctx, in.Rerender, in.Ref.Dir())
		if err != nil {
			return forge.MergeRequest{}, classify(err)
		}
		if len(changedFiles(files, held)) == 0 {
			return forge.MergeRequest{Branch: branch, NoChanges: true, BaseSHA: in.Rerender}, nil
		}
	}
	if mr, ok, err := a.Forge.Get(ctx, branch); err != nil {
		return forge.MergeRequest{}, classify(err)
	} else if ok {
		return mr, nil
	}
	var files map[string][]byte
	var err error
	switch {
	case in.Remove:
	case in.ConfigYAML == "" && in.Rerender != "":
		files, err = a.rerender(ctx, in.Ref, in.Rerender)
	default:
		files, err = a.render(ctx, in.Ref, []byte(in.ConfigYAML))
	}
	if err != nil {
		return forge.MergeRequest{}, err
	}
	mr, err := a.Forge.Open(ctx, forge.Change{
		Branch: branch,
		// The title avoids the [slipway][op] trigger syntax so merges never re-trigger webhooks.
		Title: fmt.Sprintf("slipway: %s %s", in.Operation, in.Ref),
		Body:  fmt.Sprintf("Operation %s %s of instance %s, opened by slipway.", in.Operation, in.OpID, in.Ref),
		Dir:   in.Ref.Dir(),
		Files: files,
	})
	return mr, classify(err)
}

// MergeMergeRequest merges the MR; merging a merged MR changes nothing.
func (a *Activities) MergeMergeRequest(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if err := a.fence(ctx); err != nil {
		return mr, err
	}
	merged, err := a.Forge.Merge(ctx, mr)
	return merged, classify(err)
}
