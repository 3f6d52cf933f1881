package localgit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestOpenCreatesOneBranchWithOneCommit(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	main := gitIn(t, dir, "rev-parse", "main")
	commits, branches := counts(t, dir)

	c := change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"app.yaml": []byte("a: 1\n")})
	mr, err := f.Open(ctx, c)
	require.NoError(t, err)

	c2, b2 := counts(t, dir)
	assert.Equal(t, commits+1, c2)
	assert.Equal(t, branches+1, b2)
	assert.Equal(t, mr.HeadSHA, gitIn(t, dir, "rev-parse", "refs/heads/"+c.Branch))
	assert.Equal(t, main, gitIn(t, dir, "rev-parse", c.Branch+"^"), "the branch is cut from main")
	assert.Equal(t, main, gitIn(t, dir, "rev-parse", "main"), "main does not move")
	assert.Equal(t, c.Title+"\n\n"+c.Body, gitIn(t, dir, "log", "-1", "--format=%B", c.Branch))
	assert.Equal(t, "slipway <slipway@localhost>", gitIn(t, dir, "log", "-1", "--format=%cn <%ce>", c.Branch))
	assert.Equal(t, "README.md\ninstances/acme/web/app.yaml\nstacks/web/main.tf",
		gitIn(t, dir, "ls-tree", "-r", "--name-only", c.Branch), "the rest of main is kept")
}

func TestOpenRetryCreatesNothing(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	c := change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"app.yaml": []byte("a: 1\n")})
	first, err := f.Open(ctx, c)
	require.NoError(t, err)
	commits, branches := counts(t, dir)

	again, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, first, again)
	c2, b2 := counts(t, dir)
	assert.Equal(t, commits, c2)
	assert.Equal(t, branches, b2)
}

func TestOpenNoChangesCreatesNothing(t *testing.T) {
	f, dir := newBare(t)
	ctx := context.Background()
	commits, branches := counts(t, dir)
	c := change("slipway/acme/web/update-1", "stacks/web", map[string][]byte{"main.tf": []byte("# web\n")})
	mr, err := f.Open(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, forge.MergeRequest{Branch: c.Branch, Title: c.Title, BaseSHA: gitIn(t, dir, "rev-parse", "main"), NoChanges: true}, mr)
	c2, b2 := counts(t, dir)
	assert.Equal(t, commits, c2)
	assert.Equal(t, branches, b2)
}

func TestOpenConcurrentDuplicatesMakeOneBranch(t *testing.T) {
	f, dir := newBare(t)
	second, err := New(dir) // another "process" on the same repository
	require.NoError(t, err)
	commits, branches := counts(t, dir)
	const branch = "slipway/acme/web/provision-1"

	// Different content per caller makes different commits, so only the CAS keeps one.
	mrs := make([]forge.MergeRequest, 8)
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range mrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fg := f
			if i%2 == 1 {
				fg = second
			}
			mrs[i], errs[i] = fg.Open(context.Background(), change(branch, "instances/acme/web",
				map[string][]byte{"app.yaml": []byte(fmt.Sprint(i))}))
		}()
	}
	wg.Wait()
	for i := range mrs {
		require.NoError(t, errs[i])
		assert.Equal(t, mrs[0], mrs[i], "caller %d", i)
	}
	assert.Equal(t, mrs[0].HeadSHA, gitIn(t, dir, "rev-parse", "refs/heads/"+branch))
	c2, b2 := counts(t, dir)
	assert.Equal(t, commits+1, c2)
	assert.Equal(t, branches+1, b2)
}

func TestOpenRejectsBadInputNamingTheField(t *testing.T) {
	f, dir := newBare(t)
	good := change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")})
	cases := map[string]struct {
		edit  func(c *forge.Change)
		field string
	}{
		"base branch as MR":    {func(c *forge.Change) { c.Branch = "main" }, "branch"},
		"branch with space":    {func(c *forge.Change) { c.Branch = "slipway/a b" }, "branch"},
		"branch option-like":   {func(c *forge.Change) { c.Branch = "-d" }, "branch"},
		"two-line title":       {func(c *forge.Change) { c.Title = "one\ntwo" }, "title"},
		"dir with trailing /":  {func(c *forge.Change) { c.Dir = "instances/acme/" }, "dir"},
		"dir into .git":        {func(c *forge.Change) { c.Dir = ".git/hooks" }, "dir"},
		"dir is root":          {func(c *forge.Change) { c.Dir = "." }, "dir"},
		"file escaping dir":    {func(c *forge.Change) { c.Files = map[string][]byte{"x/../../y": nil} }, "files[x/../../y]"},
		"file is also a dir":   {func(c *forge.Change) { c.Files = map[string][]byte{"a": nil, "a.b": nil, "a/b": nil} }, "files[a]"},
		"empty file name":      {func(c *forge.Change) { c.Files = map[string][]byte{"": nil} }, "files[]"},
		"nul in body":          {func(c *forge.Change) { c.Body = "a\x00b" }, "body"},
		"upper-case .GIT file": {func(c *forge.Change) { c.Files = map[string][]byte{"x/.GIT/config": nil} }, "files[x/.GIT/config]"},
	}
	commits, branches := counts(t, dir)
	for name, tc := range cases {
		c := good
		tc.edit(&c)
		_, err := f.Open(context.Background(), c)
		var invalid *forge.InvalidError
		require.True(t, errors.As(err, &invalid), "%s: want *forge.InvalidError, got %v", name, err)
		assert.Equal(t, tc.field, invalid.Field, name)
	}
	c2, b2 := counts(t, dir)
	assert.Equal(t, commits, c2, "bad input writes nothing")
	assert.Equal(t, branches, b2)
}

func TestOpenIgnoresInheritedGitEnvironment(t *testing.T) {
	_, dir := newBare(t)
	t.Setenv("GIT_DIR", t.TempDir())
	t.Setenv("GIT_INDEX_FILE", "/nonexistent/index")
	t.Setenv("GIT_WORK_TREE", t.TempDir())
	t.Setenv("GIT_OBJECT_DIRECTORY", t.TempDir())
	f, err := New(dir)
	require.NoError(t, err)
	mr, err := f.Open(context.Background(), change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	assert.Equal(t, mr.HeadSHA, gitIn(t, dir, "rev-parse", "refs/heads/slipway/acme/web/provision-1"))
}

func TestOpenAndMergeLeaveNoTemporaryFiles(t *testing.T) {
	f, _ := newBare(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mr, err := f.Open(context.Background(), change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	_, err = f.Merge(context.Background(), mr)
	require.NoError(t, err)
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, left)
}
