package testsuite

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/devenv"
)

// Git runs git in dir and returns its trimmed output.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=operator", "GIT_AUTHOR_EMAIL=op@localhost",
		"GIT_COMMITTER_NAME=operator", "GIT_COMMITTER_EMAIL=op@localhost")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}

// PushFiles commits files (repo-relative path -> content; nil deletes) straight to
// main through a clone and a push, as an operator fixing the repo by hand would.
func PushFiles(t testing.TB, repo, message string, files map[string][]byte) {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	Git(t, filepath.Dir(clone), "clone", "-q", "--branch", "main", repo, clone)
	for p, data := range files {
		full := filepath.Join(clone, p)
		if data == nil {
			Git(t, clone, "rm", "-q", p)
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, data, 0o644))
		Git(t, clone, "add", p)
	}
	Git(t, clone, "commit", "-q", "-m", message)
	Git(t, clone, "push", "-q", "origin", "main")
}

// Merges counts merge commits on main that touch dir.
func Merges(t testing.TB, repo, dir string) int {
	t.Helper()
	n, err := devenv.CountMerges(context.Background(), repo, dir)
	require.NoError(t, err)
	return n
}

// Branches lists branches whose name starts with prefix.
func Branches(t testing.TB, repo, prefix string) []string {
	t.Helper()
	out := Git(t, repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/"+prefix)
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}
