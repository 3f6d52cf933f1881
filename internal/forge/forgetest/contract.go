// Package forgetest holds the behaviour every forge.Forge backend must have, as a
// reusable test suite: each backend's tests call Contract with a constructor.
package forgetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Contract runs the forge contract as subtests. newForge must return a forge over a fresh
// repository whose base branch exists; the suite writes only under "contract/" and opens
// only branches under "slipway/contract/".
func Contract(t *testing.T, newForge func(t *testing.T) forge.Forge) {
	t.Run("OpenThenMerge", func(t *testing.T) { openThenMerge(t, newForge(t)) })
	t.Run("OpenIsIdempotent", func(t *testing.T) { openIsIdempotent(t, newForge(t)) })
	t.Run("MergeIsIdempotent", func(t *testing.T) { mergeIsIdempotent(t, newForge(t)) })
	t.Run("NoChanges", func(t *testing.T) { noChanges(t, newForge(t)) })
	t.Run("ReplaceAndDelete", func(t *testing.T) { replaceAndDelete(t, newForge(t)) })
	t.Run("ListOpen", func(t *testing.T) { listOpen(t, newForge(t)) })
	t.Run("Conflict", func(t *testing.T) { conflict(t, newForge(t)) })
	t.Run("BaseMovedWithoutConflict", func(t *testing.T) { baseMovedWithoutConflict(t, newForge(t)) })
	t.Run("BadInput", func(t *testing.T) { badInput(t, newForge(t)) })
	t.Run("CloseThenReopen", func(t *testing.T) { closeThenReopen(t, newForge(t)) })
	t.Run("CloseMerged", func(t *testing.T) { closeMerged(t, newForge(t)) })
}

// Change builds a change of dir on branch slipway/contract/<name>.
func Change(name, dir string, files map[string][]byte) forge.Change {
	return forge.Change{Branch: "slipway/contract/" + name, Title: "contract: " + name,
		Body: "opened by the forge contract suite", Dir: dir, Files: files}
}

// OpenAndMerge opens c and merges it, failing the test on any error.
func OpenAndMerge(t *testing.T, f forge.Forge, c forge.Change) forge.MergeRequest {
	t.Helper()
	ctx := context.Background()
	mr, err := f.Open(ctx, c)
	require.NoError(t, err)
	require.False(t, mr.NoChanges, "change on %s unexpectedly equals the base", c.Branch)
	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	return merged
}

func openThenMerge(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	head0, err := f.Head(ctx)
	require.NoError(t, err)
	files := map[string][]byte{"app.yaml": []byte("replicas: 2\n"), "sub/values.yaml": []byte("a: 1\n")}
	c := Change("web/provision-1", "contract/acme/web", files)

	mr, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, forge.StateOpen, mr.State)
	assert.Equal(t, c.Branch, mr.Branch)
	assert.NotEmpty(t, mr.ID)
	assert.Equal(t, c.Title, mr.Title)
	assert.Equal(t, head0, mr.BaseSHA)
	assert.NotEmpty(t, mr.HeadSHA)
	assert.Empty(t, mr.MergeSHA)
	assert.False(t, mr.NoChanges)

	head, err := f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, head0, head, "Open must not move the base")
	onBase, err := f.ReadDir(ctx, "", c.Dir)
	require.NoError(t, err)
	assert.Empty(t, onBase, "files must not reach the base before the merge")
	onBranch, err := f.ReadDir(ctx, mr.HeadSHA, c.Dir)
	require.NoError(t, err)
	assert.Equal(t, files, onBranch)

	got, ok, err := f.Get(ctx, c.Branch)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, mr, got)

	merged, err := f.Merge(ctx, mr)
	require.NoError(t, err)
	assert.Equal(t, forge.StateMerged, merged.State)
	assert.Equal(t, mr.HeadSHA, merged.HeadSHA)
	head, err = f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, head, merged.MergeSHA, "the merge must be the new base head")
	assert.NotEqual(t, mr.HeadSHA, merged.MergeSHA, "the merge must be a merge commit, not a fast-forward")
	for _, rev := range []string{"", merged.MergeSHA} {
		got, err := f.ReadDir(ctx, rev, c.Dir)
		require.NoError(t, err)
		assert.Equal(t, files, got, "files at rev %q", rev)
	}
	got, ok, err = f.Get(ctx, c.Branch)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, merged, got)
}

func openIsIdempotent(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	c := Change("idem/deploy-1", "contract/idem", map[string][]byte{"a": []byte("1")})
	first, err := f.Open(ctx, c)
	require.NoError(t, err)
	again, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, first, again)

	// A retry never rewrites the MR, even if it brings different content.
	changed := c
	changed.Files = map[string][]byte{"a": []byte("2")}
	third, err := f.Open(ctx, changed)
	require.NoError(t, err)
	assert.Equal(t, first, third)
	files, err := f.ReadDir(ctx, third.HeadSHA, c.Dir)
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"a": []byte("1")}, files)

	open, err := f.ListOpen(ctx, "slipway/contract/idem/")
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, first.ID, open[0].ID)
}

func mergeIsIdempotent(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	c := Change("remerge/update-1", "contract/remerge", map[string][]byte{"a": []byte("1")})
	merged := OpenAndMerge(t, f, c)
	head, err := f.Head(ctx)
	require.NoError(t, err)

	again, err := f.Merge(ctx, merged)
	require.NoError(t, err)
	assert.Equal(t, merged, again)
	// A retry may hold only what Open returned.
	opened := merged
	opened.State, opened.MergeSHA = forge.StateOpen, ""
	again, err = f.Merge(ctx, opened)
	require.NoError(t, err)
	assert.Equal(t, merged, again)
	reopened, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, merged, reopened)

	after, err := f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, head, after, "a repeated merge must not move the base")
}

func noChanges(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	files := map[string][]byte{"a.yaml": []byte("x: 1\n")}
	OpenAndMerge(t, f, Change("same/provision-1", "contract/same", files))
	head, err := f.Head(ctx)
	require.NoError(t, err)

	for name, c := range map[string]forge.Change{
		"same files":     Change("same/update-2", "contract/same", files),
		"delete missing": Change("missing/deprovision-1", "contract/missing", nil),
	} {
		mr, err := f.Open(ctx, c)
		require.NoError(t, err, name)
		assert.True(t, mr.NoChanges, name)
		assert.Equal(t, head, mr.BaseSHA, name)
		_, ok, err := f.Get(ctx, c.Branch)
		require.NoError(t, err, name)
		assert.False(t, ok, "%s: no MR may exist for a change without changes", name)
	}
	open, err := f.ListOpen(ctx, "slipway/contract/")
	require.NoError(t, err)
	assert.Empty(t, open)
	after, err := f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, head, after)
}

func replaceAndDelete(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	sibling := map[string][]byte{"keep.yaml": []byte("keep\n")}
	OpenAndMerge(t, f, Change("sib/provision-1", "contract/t/sib", sibling))
	OpenAndMerge(t, f, Change("web/provision-1", "contract/t/web", map[string][]byte{
		"a.yaml": []byte("a\n"), "old/b.yaml": []byte("b\n")}))

	replaced := map[string][]byte{"a.yaml": []byte("a2\n"), "new/c.yaml": []byte("c\n")}
	OpenAndMerge(t, f, Change("web/update-2", "contract/t/web", replaced))
	got, err := f.ReadDir(ctx, "", "contract/t/web")
	require.NoError(t, err)
	assert.Equal(t, replaced, got, "the change replaces the whole dir")

	OpenAndMerge(t, f, Change("web/deprovision-3", "contract/t/web", nil))
	got, err = f.ReadDir(ctx, "", "contract/t/web")
	require.NoError(t, err)
	assert.Empty(t, got)
	got, err = f.ReadDir(ctx, "", "contract/t/sib")
	require.NoError(t, err)
	assert.Equal(t, sibling, got, "a change touches only its own dir")
}

func listOpen(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	var mrs []forge.MergeRequest
	for _, name := range []string{"list/a/op-1", "list/b/op-2", "list/c/op-3"} {
		mr, err := f.Open(ctx, Change(name, "contract/"+name, map[string][]byte{"f": []byte(name)}))
		require.NoError(t, err)
		mrs = append(mrs, mr)
	}
	other, err := f.Open(ctx, Change("elsewhere/op-1", "contract/elsewhere", map[string][]byte{"f": []byte("x")}))
	require.NoError(t, err)
	_, err = f.Merge(ctx, mrs[1])
	require.NoError(t, err)

	open, err := f.ListOpen(ctx, "slipway/contract/list/")
	require.NoError(t, err)
	assert.Equal(t, []forge.MergeRequest{mrs[0], mrs[2]}, open, "open MRs under the prefix, oldest first")
	all, err := f.ListOpen(ctx, "slipway/contract/")
	require.NoError(t, err)
	assert.ElementsMatch(t, []forge.MergeRequest{mrs[0], mrs[2], other}, all)
	none, err := f.ListOpen(ctx, "slipway/contract/nothing/")
	require.NoError(t, err)
	assert.Empty(t, none)
}

func conflict(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	OpenAndMerge(t, f, Change("conflict/provision-1", "contract/conflict", map[string][]byte{"app.yaml": []byte("v: 0\n")}))
	first, err := f.Open(ctx, Change("conflict/update-2", "contract/conflict", map[string][]byte{"app.yaml": []byte("v: 1\n")}))
	require.NoError(t, err)
	second, err := f.Open(ctx, Change("conflict/update-3", "contract/conflict", map[string][]byte{"app.yaml": []byte("v: 2\n")}))
	require.NoError(t, err)
	_, err = f.Merge(ctx, first)
	require.NoError(t, err)
	head, err := f.Head(ctx)
	require.NoError(t, err)

	_, err = f.Merge(ctx, second)
	var ce *forge.ConflictError
	require.True(t, errors.As(err, &ce), "want *forge.ConflictError, got %v", err)
	assert.Equal(t, second.Branch, ce.Branch)
	assert.Contains(t, ce.Paths, "contract/conflict/app.yaml")
	assert.True(t, forge.IsNonRetryable(err))
	after, err := f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, head, after, "a failed merge must not move the base")
	got, ok, err := f.Get(ctx, second.Branch)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, forge.StateOpen, got.State)
}

func baseMovedWithoutConflict(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	x, err := f.Open(ctx, Change("moved/x/provision-1", "contract/moved/x", map[string][]byte{"f": []byte("x")}))
	require.NoError(t, err)
	y, err := f.Open(ctx, Change("moved/y/provision-1", "contract/moved/y", map[string][]byte{"f": []byte("y")}))
	require.NoError(t, err)
	_, err = f.Merge(ctx, x)
	require.NoError(t, err)
	merged, err := f.Merge(ctx, y)
	require.NoError(t, err)
	assert.Equal(t, forge.StateMerged, merged.State)
	all, err := f.ReadDir(ctx, merged.MergeSHA, "contract/moved")
	require.NoError(t, err)
	assert.Equal(t, map[string][]byte{"x/f": []byte("x"), "y/f": []byte("y")}, all)
}

func badInput(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	good := Change("bad/op-1", "contract/bad", map[string][]byte{"f": []byte("x")})
	cases := map[string]struct {
		edit  func(c *forge.Change)
		field string
	}{
		"empty branch":  {func(c *forge.Change) { c.Branch = "" }, "branch"},
		"bad branch":    {func(c *forge.Change) { c.Branch = "slipway/a..b" }, "branch"},
		"empty title":   {func(c *forge.Change) { c.Title = "" }, "title"},
		"empty dir":     {func(c *forge.Change) { c.Dir = "" }, "dir"},
		"escaping dir":  {func(c *forge.Change) { c.Dir = "../outside" }, "dir"},
		"absolute file": {func(c *forge.Change) { c.Files = map[string][]byte{"/etc/passwd": nil} }, "files[/etc/passwd]"},
	}
	for name, tc := range cases {
		c := good
		tc.edit(&c)
		_, err := f.Open(ctx, c)
		var invalid *forge.InvalidError
		require.True(t, errors.As(err, &invalid), "%s: want *forge.InvalidError, got %v", name, err)
		assert.Equal(t, tc.field, invalid.Field, name)
		assert.Contains(t, err.Error(), tc.field, "%s: the message names the field", name)
		assert.True(t, forge.IsNonRetryable(err), name)
	}

	_, err := f.Merge(ctx, forge.MergeRequest{ID: "slipway/contract/never-opened", Branch: "slipway/contract/never-opened"})
	var nf *forge.NotFoundError
	require.True(t, errors.As(err, &nf), "want *forge.NotFoundError, got %v", err)
	assert.True(t, forge.IsNonRetryable(err))
	_, err = f.Close(ctx, forge.MergeRequest{ID: "slipway/contract/never-opened", Branch: "slipway/contract/never-opened"})
	require.True(t, errors.As(err, &nf), "close: want *forge.NotFoundError, got %v", err)
	_, ok, err := f.Get(ctx, "slipway/contract/never-opened")
	require.NoError(t, err)
	assert.False(t, ok)
}

// closeThenReopen: Close leaves nothing open, is idempotent, and the change can be opened
// again. After Close, Get reports the MR closed, except on github, whose Get skips closed PRs
// and reports none. The reopened MR is new; its ID stays the branch on localgit, and gitea
// puts it on the branch's next name (gitea/orphan.go), so only its content and state are checked.
func closeThenReopen(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	nothing, err := f.Open(ctx, Change("close/noop-1", "contract/never-there", nil))
	require.NoError(t, err)
	require.True(t, nothing.NoChanges)
	same, err := f.Close(ctx, nothing)
	require.NoError(t, err)
	assert.Equal(t, nothing, same, "an MR without changes is returned as it is")

	head0, err := f.Head(ctx)
	require.NoError(t, err)
	c := Change("close/deploy-1", "contract/close", map[string][]byte{"a": []byte("1")})
	mr, err := f.Open(ctx, c)
	require.NoError(t, err)
	closed, err := f.Close(ctx, mr)
	require.NoError(t, err)
	want := mr
	want.State = forge.StateClosed
	assert.Equal(t, want, closed)
	head, err := f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, head0, head, "Close must not move the base")
	onBase, err := f.ReadDir(ctx, "", c.Dir)
	require.NoError(t, err)
	assert.Empty(t, onBase)
	open, err := f.ListOpen(ctx, "slipway/contract/close/")
	require.NoError(t, err)
	assert.Empty(t, open, "a closed MR is not open")
	if got, ok, err := f.Get(ctx, c.Branch); assert.NoError(t, err) && ok {
		assert.Equal(t, closed, got)
	}

	// A retry after a lost answer holds what Open returned, or what Close did.
	for _, retry := range []forge.MergeRequest{mr, closed} {
		again, err := f.Close(ctx, retry)
		require.NoError(t, err)
		assert.Equal(t, closed, again)
	}

	c.Files = map[string][]byte{"a": []byte("2")}
	reopened, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, forge.StateOpen, reopened.State, "Open of a closed MR's branch opens a new MR")
	assert.False(t, reopened.NoChanges)
	assert.NotEqual(t, closed.HeadSHA, reopened.HeadSHA)
	files, err := f.ReadDir(ctx, reopened.HeadSHA, c.Dir)
	require.NoError(t, err)
	assert.Equal(t, c.Files, files, "the new MR holds the new change")
	got, ok, err := f.Get(ctx, c.Branch)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, reopened, got)
	again, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, reopened, again)

	// A late retry of the first Close must leave the new MR alone.
	_, err = f.Close(ctx, mr)
	require.NoError(t, err)
	open, err = f.ListOpen(ctx, "slipway/contract/close/")
	require.NoError(t, err)
	assert.Equal(t, []forge.MergeRequest{reopened}, open)
	merged, err := f.Merge(ctx, reopened)
	require.NoError(t, err)
	onBase, err = f.ReadDir(ctx, merged.MergeSHA, c.Dir)
	require.NoError(t, err)
	assert.Equal(t, c.Files, onBase)
}

// closeMerged: a merged MR cannot be closed; the error says so, typed, and nothing changes.
func closeMerged(t *testing.T, f forge.Forge) {
	ctx := context.Background()
	c := Change("closemerged/deploy-1", "contract/closemerged", map[string][]byte{"a": []byte("1")})
	merged := OpenAndMerge(t, f, c)
	head, err := f.Head(ctx)
	require.NoError(t, err)
	opened := merged // a caller that only saw Open's answer
	opened.State, opened.MergeSHA = forge.StateOpen, ""
	for _, mr := range []forge.MergeRequest{merged, opened} {
		_, err := f.Close(ctx, mr)
		var me *forge.MergedError
		require.True(t, errors.As(err, &me), "want *forge.MergedError, got %v", err)
		assert.Equal(t, forge.StateMerged, me.MR.State)
		assert.Equal(t, merged.MergeSHA, me.MR.MergeSHA)
		assert.True(t, forge.IsNonRetryable(err))
	}
	after, err := f.Head(ctx)
	require.NoError(t, err)
	assert.Equal(t, head, after)
	got, ok, err := f.Get(ctx, c.Branch)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, merged, got)
}
