package localgit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
)

// seed is the content of every test repository's initial commit.
var seed = map[string][]byte{"README.md": []byte("gitops\n"), "stacks/web/main.tf": []byte("# web\n")}

// newBare makes a fresh bare repository with seed and opens it.
func newBare(t *testing.T) (*Forge, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "gitops.git")
	f, err := Init(dir, seed)
	require.NoError(t, err)
	return f, dir
}

// gitIn runs real git against the repository at dir for assertions.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gitEnv(t, dir, nil, args...)
}

// gitEnv is gitIn with extra environment variables.
func gitEnv(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append([]string{"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@localhost",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@localhost"}, env...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") { // a test may set GIT_DIR to prove the forge ignores it
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// counts returns how many commits and how many branches the repository has.
func counts(t *testing.T, dir string) (commits, branches int) {
	t.Helper()
	commits, err := strconv.Atoi(gitIn(t, dir, "rev-list", "--all", "--count"))
	require.NoError(t, err)
	return commits, len(strings.Fields(gitIn(t, dir, "for-each-ref", "--format=%(refname)", "refs/heads/")))
}

func change(branch, dir string, files map[string][]byte) forge.Change {
	return forge.Change{Branch: branch, Title: "update " + dir, Body: "by a test", Dir: dir, Files: files}
}

// pushToMain commits files onto main the way a person would: clone, commit, push.
func pushToMain(t *testing.T, repo string, files map[string]string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "clone")
	gitIn(t, t.TempDir(), "clone", "-q", "--branch", "main", repo, work)
	for name, content := range files {
		p := filepath.Join(work, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	gitIn(t, work, "add", "-A")
	gitIn(t, work, "commit", "-q", "--no-gpg-sign", "-m", "hand edit")
	gitIn(t, work, "push", "-q", "origin", "main")
	return gitIn(t, work, "rev-parse", "HEAD")
}
