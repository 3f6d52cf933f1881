package activities

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

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
	var files map[string][]byte
	var err error
	switch {
	case in.Remove:
	case in.ConfigYAML == "" && in.Rerender != "":
		files, err = a.rerender(ctx, in.Ref, in.Rerender, "")
	case in.Archive != "":
		files, err = a.archived(ctx, in.Ref, in.Archive)
	default:
		files, err = a.render(ctx, "", in.Ref, []byte(in.ConfigYAML))
	}
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if base := cmp.Or(in.Rerender, in.Archive); in.ConfigYAML == "" && base != "" {
		// A plain deploy or an archive: when main already holds the files (the stack has not changed,
		// the instance is marked archived already), there is nothing to open, and the forge is not
		// asked (it may be down, with main read from a mirror).
		held, err := a.Forge.ReadDir(ctx, base, in.Ref.Dir())
		if err != nil {
			return forge.MergeRequest{}, classify(err)
		}
		if len(changedFiles(files, held)) == 0 {
			return forge.MergeRequest{Branch: branch, NoChanges: true, BaseSHA: base}, nil
		}
	}
	mr, ok, err := a.Forge.Get(ctx, branch)
	if err != nil {
		return forge.MergeRequest{}, classify(err)
	}
	if !ok {
		mr, err = a.Forge.Open(forgeNotes(ctx, "instance", in.Ref.String()), forge.Change{
			Branch: branch,
			// The title avoids the [slipway][op] trigger syntax so merges never re-trigger webhooks.
			Title: fmt.Sprintf("slipway: %s %s", in.Operation, in.Ref),
			Body:  fmt.Sprintf("Operation %s %s of instance %s, opened by slipway.", in.Operation, in.OpID, in.Ref),
			Dir:   in.Ref.Dir(),
			Files: files,
		})
		if err != nil {
			return forge.MergeRequest{}, classify(err)
		}
	}
	return mr, a.checkBranch(ctx, mr, in.Ref.Dir(), files)
}

// checkBranch refuses an MR whose head does not hold exactly the files slipway rendered: its
// branch name is predictable, so someone may have pushed it first, and the merge's record (and
// then terraform) would take their files for slipway's.
func (a *Activities) checkBranch(ctx context.Context, mr forge.MergeRequest, dir string, want map[string][]byte) error {
	if mr.NoChanges || mr.HeadSHA == "" {
		return nil
	}
	got, err := a.Forge.ReadDir(ctx, mr.HeadSHA, dir)
	if err != nil {
		return classify(err)
	}
	if diff := changedFiles(want, got); len(diff) > 0 {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s: branch %s holds files under %s that slipway did not render (%s): close the MR and delete the branch, then retry",
			mr.ID, mr.Branch, dir, strings.Join(diff, ", ")), contract.ErrRenderChanged, nil)
	}
	return nil
}

// MergeMergeRequest merges the MR; merging a merged MR changes nothing.
func (a *Activities) MergeMergeRequest(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if err := a.fence(ctx); err != nil {
		return mr, err
	}
	var repaired []string
	merged, err := a.Forge.Merge(forgeNotes(ctx, "branch", mr.Branch, &repaired), mr)
	merged.Repaired = repaired
	return merged, classify(err)
}

// forgeNotes logs what the forge repaired on its own during the step (a stale git lock a killed
// worker left), with what the step works on: the instance, or the MR's branch that names it;
// into, when given, gets each repair in one line for the step's record.
func forgeNotes(ctx context.Context, key, subject string, into ...*[]string) context.Context {
	if !activity.IsActivity(ctx) {
		return ctx
	}
	logger := activity.GetLogger(ctx)
	return forge.WithNotes(ctx, func(msg string, attrs ...any) {
		logger.Warn(msg, append([]any{key, subject}, attrs...)...)
		for _, to := range into {
			*to = append(*to, noteLine(msg, attrs))
		}
	})
}

// noteLine is a note with its attributes: "msg (k v, k v)".
func noteLine(msg string, attrs []any) string {
	var kv []string
	for i := 0; i+1 < len(attrs); i += 2 {
		// The repository's path is the worker's, not the user's; what the message says already, once.
		if k, v := fmt.Sprint(attrs[i]), fmt.Sprint(attrs[i+1]); k != "repo" && !strings.Contains(msg, v) {
			kv = append(kv, k+" "+v)
		}
	}
	if len(kv) == 0 {
		return msg
	}
	return msg + " (" + strings.Join(kv, ", ") + ")"
}
