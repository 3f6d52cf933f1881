package localgit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Merge merges the MR's branch into the base with a merge commit (parents: base head,
// branch head). An MR already merged is returned unchanged and nothing is written.
func (f *Forge) Merge(ctx context.Context, mr forge.MergeRequest) (forge.MergeRequest, error) {
	if mr.NoChanges {
		return forge.MergeRequest{}, &forge.InvalidError{Field: "mr", Value: mr.Branch, Problem: "has no changes; there is nothing to merge"}
	}
	if err := f.checkBranch(ctx, mr.Branch); err != nil {
		return forge.MergeRequest{}, err
	}
	b, ok, err := f.git.readBranch(ctx, mr.Branch)
	if err != nil {
		return forge.MergeRequest{}, err
	}
	if !ok {
		return forge.MergeRequest{}, &forge.NotFoundError{What: "branch " + mr.Branch + " in " + f.path}
	}
	var lastErr error
	for attempt := 0; attempt < f.cfg.attempts; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt); err != nil {
				return forge.MergeRequest{}, err
			}
		}
		var merged forge.MergeRequest
		var retry bool
		err := f.writing(ctx, func() (err error) {
			merged, retry, err = f.mergeOnce(ctx, b)
			return err
		})
		if !retry {
			return merged, err
		}
		lastErr = err
	}
	var locked *forge.LockedError
	if errors.As(lastErr, &locked) {
		return forge.MergeRequest{}, fmt.Errorf("localgit: merge %s: %w (%d attempts)", b.name, lastErr, f.cfg.attempts)
	}
	return forge.MergeRequest{}, fmt.Errorf("localgit: merge %s: %w %d times (last: %v)", b.name, forge.ErrBaseMoved, f.cfg.attempts, lastErr)
}

// mergeOnce tries to land one merge commit on the current base head, under the writer lock.
// retry is true (with the cause) when the base moved, or its ref was locked by a writer outside
// slipway (*forge.LockedError), and the merge must be recomputed.
func (f *Forge) mergeOnce(ctx context.Context, b branch) (mr forge.MergeRequest, retry bool, err error) {
	base, err := f.Head(ctx)
	if err != nil {
		return forge.MergeRequest{}, false, err
	}
	mergeSHA, merged, err := f.git.mergeOf(ctx, base, b.head)
	if err != nil {
		return forge.MergeRequest{}, false, err
	}
	if merged {
		return f.mr(b, mergeSHA), false, nil
	}
	tree, conflicts, err := f.git.mergeTree(ctx, base, b.head)
	if err != nil {
		return forge.MergeRequest{}, false, err
	}
	if conflicts != nil {
		return forge.MergeRequest{}, false, &forge.ConflictError{Branch: b.name, Paths: conflicts}
	}
	msg := fmt.Sprintf("Merge branch '%s'\n\n%s\n", b.name, b.subject)
	commit, err := f.git.commitTree(ctx, tree, msg, base, b.head)
	if err != nil {
		return forge.MergeRequest{}, false, err
	}
	_, err = f.git.run(ctx, nil, nil, "update-ref", "-m", "slipway: merge "+b.name, f.baseRef(), commit, base)
	if err == nil {
		return f.mr(b, commit), false, nil
	}
	// "Unable to create '....lock': File exists" (locked) or "cannot lock ref ...: is at X but expected Y" (moved).
	var g *GitError
	var unw *UnwritableError
	switch {
	case errors.As(err, &unw) || !errors.As(err, &g):
	case strings.Contains(g.Stderr, "File exists"):
		return forge.MergeRequest{}, true, &forge.LockedError{What: f.baseRef() + " of " + f.path, Err: err}
	case strings.Contains(g.Stderr, "lock"):
		return forge.MergeRequest{}, true, err
	}
	return forge.MergeRequest{}, false, err
}

// mergeTree merges head into base without a work tree. It returns the merged tree, or
// the conflicting paths (non-nil, possibly empty) when the merge does not apply cleanly.
func (r *runner) mergeTree(ctx context.Context, base, head string) (string, []string, error) {
	out, err := r.run(ctx, nil, nil, "merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", base, head)
	if err != nil && exitCode(err) != 1 {
		return "", nil, err
	}
	fields := strings.Split(string(out), "\x00")
	if err == nil {
		return fields[0], nil, nil
	}
	conflicts := []string{}
	for _, p := range fields[1:] {
		if p == "" {
			break
		}
		conflicts = append(conflicts, p)
	}
	return "", conflicts, nil
}

// backoff waits a little, with jitter, so racing mergers stop colliding.
func backoff(ctx context.Context, attempt int) error {
	limit := time.Duration(min(attempt, 20)) * 5 * time.Millisecond
	t := time.NewTimer(time.Duration(rand.Int64N(int64(limit))) + time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
