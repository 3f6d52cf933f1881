package workerapp

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/policy"
)

// A policy directory that does not compile stops the worker before anything starts, naming the
// file and line; a good one is the engine every Authorize uses.
func TestWorkerLoadsThePolicyDir(t *testing.T) {
	validConfig(t)
	gitops := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"}} {
		out, err := exec.Command("git", append([]string{"-C", gitops}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	t.Setenv("SLIPWAY_GITOPS_REPO", gitops)
	t.Setenv("SLIPWAY_STATE_DIR", t.TempDir())
	dir := t.TempDir()
	broken := filepath.Join(dir, "slipway.rego")
	require.NoError(t, os.WriteFile(broken, []byte("package slipway\n\ndecision := {\"allow\": true\n"), 0o644))
	t.Setenv(policy.EnvDir, dir)
	_, err := NewActivities(FromEnv())
	require.ErrorContains(t, err, policy.EnvDir+": "+broken+":")
	require.ErrorContains(t, err, "rego_parse_error")

	require.NoError(t, os.WriteFile(broken, []byte("package slipway\n\ndecision := {\"allow\": true}\n"), 0o644))
	acts, err := NewActivities(FromEnv())
	require.NoError(t, err)
	want, err := policy.Load(dir)
	require.NoError(t, err)
	require.Equal(t, want.Hash(), acts.Policy.Hash())

	t.Setenv(policy.EnvDir, "")
	acts, err = NewActivities(FromEnv())
	require.NoError(t, err)
	require.Same(t, policy.Default(), acts.Policy)
}
