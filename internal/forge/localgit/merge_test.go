package localgit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
)

func TestMergeMakesOneNoFFMergeCommit(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	main := gitIn(t, dir, "rev-parse", "main")
	c := change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"app.yaml": []byte("a: 1\n")})
	mr, err := f.Open(ctx, c)
	require.NoError(t, err)
	commits, branches := counts(t, dir)

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, merged.MergeSHA, gitIn(t, dir, "rev-parse", "main"))
	assert.Equal(t, merged.MergeSHA+" "+main+" "+mr.HeadSHA, gitIn(t, dir, "rev-list", "--parents", "-1", "main"),
		"parents are (main, branch)")
	assert.Equal(t, "Merge branch '"+c.Branch+"'\n\n"+c.Title, gitIn(t, dir, "log", "-1", "--format=%B", "main"))
	assert.Equal(t, "1", gitIn(t, dir, "rev-list", "--merges", "--count", "main"))
	assert.Equal(t, "a: 1", gitIn(t, dir, "show", "main:instances/acme/web/app.yaml"))
	c2, b2 := counts(t, dir)
	assert.Equal(t, commits+1, c2)
	assert.Equal(t, branches, b2, "the branch is kept: it is the MR's record")
}

func TestMergeAgainIsANoOp(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	commits, branches := counts(t, dir)

	for i := 0; i < 3; i++ {
		again, err := f.Merge(ctx, mr) // the stale, still-open MR value a retried activity holds
		require.NoError(t, err)
		assert.Equal(t, merged, again)
	}
	c2, b2 := counts(t, dir)
	assert.Equal(t, commits, c2)
	assert.Equal(t, branches, b2)
}

func TestMergeConflictWithAPushToMain(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/update-1", "stacks/web", map[string][]byte{"main.tf": []byte("# from the MR\n")}))
	require.NoError(t, err)
	pushed := pushToMain(t, dir, map[string]string{"stacks/web/main.tf": "# by hand\n"})

	_, err = f.Merge(ctx, mr)
	var ce *forge.ConflictError
	require.True(t, errors.As(err, &ce), "want *forge.ConflictError, got %v", err)
	assert.Equal(t, &forge.ConflictError{Branch: mr.Branch, Paths: []string{"stacks/web/main.tf"}}, ce)
	assert.True(t, forge.IsNonRetryable(err))
	assert.Equal(t, pushed, gitIn(t, dir, "rev-parse", "main"), "main is untouched")
}

func TestMergeAfterMainMovedWithoutConflict(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"app.yaml": []byte("a\n")}))
	require.NoError(t, err)
	pushed := pushToMain(t, dir, map[string]string{"stacks/db/main.tf": "# db\n"})

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, merged.MergeSHA+" "+pushed+" "+mr.HeadSHA, gitIn(t, dir, "rev-list", "--parents", "-1", "main"))
	files, err := f.ReadDir(ctx, "", "")
	require.NoError(t, err)
	assert.Equal(t, []byte("a\n"), files["instances/acme/web/app.yaml"])
	assert.Equal(t, []byte("# db\n"), files["stacks/db/main.tf"])
}

func TestConcurrentMergesOfDifferentInstancesAllLand(t *testing.T) {
	f, dir := newBare(t)
	other, err := New(dir) // a second "process" on the same repository
	require.NoError(t, err)
	ctx := context.Background()
	const n = 8
	mrs := make([]forge.MergeRequest, n)
	for i := range mrs {
		name := fmt.Sprintf("app%d", i)
		mrs[i], err = f.Open(ctx, change("slipway/acme/"+name+"/provision-1", "instances/acme/"+name,
			map[string][]byte{"app.yaml": []byte(name)}))
		require.NoError(t, err)
	}

	merged := make([]forge.MergeRequest, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range mrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fg := f
			if i%2 == 1 {
				fg = other
			}
			merged[i], errs[i] = fg.Merge(ctx, mrs[i])
		}()
	}
	wg.Wait()

	assert.Equal(t, fmt.Sprint(n), gitIn(t, dir, "rev-list", "--merges", "--count", "main"))
	secondParents := map[string]bool{}
	for _, line := range strings.Split(gitIn(t, dir, "rev-list", "--merges", "--parents", "main"), "\n") {
		secondParents[strings.Fields(line)[2]] = true
	}
	files, err := f.ReadDir(ctx, "", "instances/acme")
	require.NoError(t, err)
	for i := range mrs {
		require.NoError(t, errs[i])
		assert.Equal(t, forge.StateMerged, merged[i].State)
		assert.True(t, secondParents[mrs[i].HeadSHA], "branch %d is merged by its own merge commit", i)
		assert.Equal(t, []byte(fmt.Sprintf("app%d", i)), files[fmt.Sprintf("app%d/app.yaml", i)])
	}
}

func TestConcurrentMergesOfOneMRMergeOnce(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	results := make([]forge.MergeRequest, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = f.Merge(ctx, mr)
		}()
	}
	wg.Wait()
	for i := range results {
		require.NoError(t, errs[i])
		assert.Equal(t, results[0], results[i])
	}
	assert.Equal(t, "1", gitIn(t, dir, "rev-list", "--merges", "--count", "main"))
}

func TestMergeFastForwardedBranchCountsAsMerged(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	gitIn(t, dir, "update-ref", "refs/heads/main", mr.HeadSHA) // someone fast-forwarded main by hand

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateMerged, merged.State)
	assert.Equal(t, mr.HeadSHA, merged.MergeSHA)
	assert.Equal(t, mr.HeadSHA, gitIn(t, dir, "rev-parse", "main"), "no merge commit is added")
}

func TestMergeRejectsWhatCannotBeMerged(t *testing.T) {
	f, _ := newBare(t)
	ctx := context.Background()
	_, err := f.Merge(ctx, forge.MergeRequest{Branch: "slipway/acme/web/update-1", NoChanges: true})
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "mr", invalid.Field)

	_, err = f.Merge(ctx, forge.MergeRequest{})
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "branch", invalid.Field)

	_, err = f.Merge(ctx, forge.MergeRequest{Branch: "slipway/acme/web/never-opened"})
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "got %v", err)
	assert.Contains(t, err.Error(), "slipway/acme/web/never-opened")
}

func TestMergeGivesUpRetryablyWhileAPushOutsideSlipwayHoldsMainsLock(t *testing.T) {
	_, dir := newBare(t)
	f, err := New(dir, WithMergeAttempts(3))
	require.NoError(t, err)
	ctx := context.Background()
	mr, err := f.Open(ctx, change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	lock := filepath.Join(dir, "refs", "heads", "main.lock") // just now: a person's git push at work
	require.NoError(t, os.WriteFile(lock, nil, 0o644))
	main := gitIn(t, dir, "rev-parse", "main")

	_, err = f.Merge(ctx, mr)
	var locked *forge.LockedError
	require.True(t, errors.As(err, &locked), "want *forge.LockedError, got %v", err)
	assert.NotErrorIs(t, err, forge.ErrBaseMoved, "a held lock is not a moved base")
	assert.ErrorIs(t, err, errkind.Busy)
	assert.False(t, forge.IsNonRetryable(err))
	assert.Contains(t, err.Error(), "3 attempts")
	assert.Contains(t, err.Error(), "main.lock", "the cause is in the message")
	assert.FileExists(t, lock, "a young lock may be a live writer's: it is kept")
	assert.Equal(t, main, gitIn(t, dir, "rev-parse", "main"))

	require.NoError(t, os.Remove(lock))
	merged, err := f.Merge(ctx, mr) // the activity's retry
	require.NoError(t, err)
	assert.Equal(t, merged.MergeSHA, gitIn(t, dir, "rev-parse", "main"))
}
