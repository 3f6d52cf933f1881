package localgit

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

func TestNewRejectsWhatIsNotARepository(t *testing.T) {
	plain := t.TempDir()
	_, worktree := newNonBare(t)
	inside := filepath.Join(worktree, "sub")
	require.NoError(t, os.Mkdir(inside, 0o755))

	for name, dir := range map[string]string{
		"plain dir":       plain,
		"missing dir":     filepath.Join(plain, "nope"),
		"inside worktree": inside,
	} {
		_, err := New(dir)
		var re *RepoError
		require.True(t, errors.As(err, &re), "%s: want *RepoError, got %v", name, err)
		assert.Equal(t, dir, re.Path, name)
		assert.Contains(t, err.Error(), "localgit: "+dir+" ", "%s: the message names the path", name)
	}
	_, err := New(plain)
	assert.EqualError(t, err, "localgit: "+plain+" is not a git repository")
}

func TestNewRequiresBaseBranch(t *testing.T) {
	_, dir := newBare(t)
	_, err := New(dir, WithBaseBranch("trunk"))
	assert.EqualError(t, err, "localgit: "+dir+" has no branch trunk")
}

func TestNewRejectsBadOptions(t *testing.T) {
	_, dir := newBare(t)
	for field, opt := range map[string]Option{
		"author name":    WithAuthor("", "a@b"),
		"author email":   WithAuthor("a", "not-an-email"),
		"base branch":    WithBaseBranch("bad..name"),
		"git binary":     WithGitBinary(""),
		"merge attempts": WithMergeAttempts(0),
	} {
		_, err := New(dir, opt)
		var invalid *forge.InvalidError
		require.True(t, errors.As(err, &invalid), "%s: want *forge.InvalidError, got %v", field, err)
		assert.Equal(t, field, invalid.Field)
	}
	_, err := New(dir, WithGitBinary(filepath.Join(dir, "no-such-git")))
	assert.ErrorContains(t, err, "no-such-git")
}

func TestInitCreatesBareRepoWithSeed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "gitops")
	f, err := Init(dir, seed, WithBaseBranch("trunk"), WithAuthor("Robot", "robot@example.test"))
	require.NoError(t, err)

	assert.Equal(t, "true", gitIn(t, dir, "rev-parse", "--is-bare-repository"))
	assert.Equal(t, "refs/heads/trunk", gitIn(t, dir, "symbolic-ref", "HEAD"))
	assert.Equal(t, "1", gitIn(t, dir, "rev-list", "--count", "trunk"))
	assert.Equal(t, "Robot <robot@example.test>", gitIn(t, dir, "log", "-1", "--format=%an <%ae>", "trunk"))
	files, err := f.ReadDir(context.Background(), "", "")
	require.NoError(t, err)
	assert.Equal(t, seed, files)
}

func TestInitIsIdempotent(t *testing.T) {
	f, dir := newBare(t)
	head, err := f.Head(context.Background())
	require.NoError(t, err)

	again, err := Init(dir, map[string][]byte{"other.txt": []byte("other")})
	require.NoError(t, err)
	head2, err := again.Head(context.Background())
	require.NoError(t, err)
	assert.Equal(t, head, head2, "an existing repository is left as it is")
	files, err := again.ReadDir(context.Background(), "", "")
	require.NoError(t, err)
	assert.Equal(t, seed, files)
}

func TestInitFinishesAnInterruptedInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gitops.git")
	gitIn(t, t.TempDir(), "init", "-q", "--bare", "--initial-branch=main", dir) // crashed before the first commit
	f, err := Init(dir, seed)
	require.NoError(t, err)
	files, err := f.ReadDir(context.Background(), "", "")
	require.NoError(t, err)
	assert.Equal(t, seed, files)
}

func TestInitRefusesNonEmptyNonRepoDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "precious.txt"), []byte("x"), 0o644))
	_, err := Init(dir, seed)
	assert.EqualError(t, err, "localgit: "+dir+" exists, is not empty and is not a git repository")
}

func TestInitRejectsBadSeed(t *testing.T) {
	_, err := Init(filepath.Join(t.TempDir(), "r"), map[string][]byte{"a/../../b": nil})
	var invalid *forge.InvalidError
	require.True(t, errors.As(err, &invalid), "got %v", err)
	assert.Equal(t, "seed[a/../../b]", invalid.Field)
}

func TestNameAndURLs(t *testing.T) {
	f, dir := newBare(t)
	assert.Equal(t, "localgit", f.Name())
	assert.Equal(t, "file://"+dir, f.RepoURL())
	mr, err := f.Open(context.Background(), change("slipway/acme/web/provision-1", "instances/acme/web", map[string][]byte{"a": []byte("1")}))
	require.NoError(t, err)
	assert.Equal(t, "file://"+dir+"#slipway/acme/web/provision-1", mr.URL)
	assert.Equal(t, "slipway/acme/web/provision-1", mr.ID)
	// The URL is clonable by a GitOps agent.
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, t.TempDir(), "clone", "-q", f.RepoURL(), clone)
	assert.FileExists(t, filepath.Join(clone, "README.md"))
}
