package devenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolsDirHonoursEnv(t *testing.T) {
	t.Setenv("SLIPWAY_TOOLS_DIR", "/opt/tools")
	assert.Equal(t, "/opt/tools", ToolsDir())
	assert.Equal(t, "/opt/tools/temporal-v1.5.1/temporal", CachedTemporal())

	t.Setenv("SLIPWAY_TOOLS_DIR", "")
	t.Setenv("HOME", "/home/someone")
	assert.Equal(t, "/home/someone/.cache/slipway/tools", ToolsDir())
}

func TestFindTemporalOrder(t *testing.T) {
	tools := t.TempDir()
	pathDir := t.TempDir()
	onPath := fakeExecutable(t, pathDir, "temporal")
	t.Setenv("SLIPWAY_TOOLS_DIR", tools)
	t.Setenv("PATH", pathDir)
	t.Setenv("SLIPWAY_TEMPORAL", "")

	got, err := FindTemporal()
	require.NoError(t, err)
	assert.Equal(t, onPath, got, "PATH is the last resort")

	pinned := fakeExecutable(t, filepath.Join(tools, "temporal-"+TemporalVersion), "temporal")
	got, err = FindTemporal()
	require.NoError(t, err)
	assert.Equal(t, pinned, got, "the pinned cached build wins over PATH")

	explicit := fakeExecutable(t, t.TempDir(), "my-temporal")
	t.Setenv("SLIPWAY_TEMPORAL", explicit)
	got, err = FindTemporal()
	require.NoError(t, err)
	assert.Equal(t, explicit, got, "$SLIPWAY_TEMPORAL wins over everything")
}

func TestFindTemporalNotFoundSaysHowToBuildIt(t *testing.T) {
	tools := filepath.Join(t.TempDir(), "no-tools")
	t.Setenv("SLIPWAY_TOOLS_DIR", tools)
	t.Setenv("PATH", filepath.Join(t.TempDir(), "empty-path"))
	t.Setenv("SLIPWAY_TEMPORAL", "")

	_, err := FindTemporal()
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf)
	msg := err.Error()
	assert.Contains(t, msg, "run `make temporal` (builds github.com/temporalio/cli v1.5.1 from the Go module proxy, ~9 minutes once)")
	assert.Contains(t, msg, filepath.Join(tools, "temporal-v1.5.1", "temporal"))
	assert.Contains(t, msg, "PATH")
}

func TestFindTemporalRejectsAWrongExplicitPath(t *testing.T) {
	pathDir := t.TempDir()
	fakeExecutable(t, pathDir, "temporal")
	t.Setenv("PATH", pathDir)
	missing := filepath.Join(t.TempDir(), "gone", "temporal")
	t.Setenv("SLIPWAY_TEMPORAL", missing)

	_, err := FindTemporal()
	var nf *NotFoundError
	require.ErrorAs(t, err, &nf, "an explicit override must not fall back to PATH")
	assert.Contains(t, err.Error(), "$SLIPWAY_TEMPORAL="+missing)
	assert.Contains(t, err.Error(), "make temporal")

	notExec := filepath.Join(t.TempDir(), "temporal")
	require.NoError(t, os.WriteFile(notExec, []byte("x"), 0o644))
	t.Setenv("SLIPWAY_TEMPORAL", notExec)
	_, err = FindTemporal()
	require.ErrorAs(t, err, &nf)
}
