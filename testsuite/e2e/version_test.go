package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/version"
)

// The release set at link time, as `make build` sets it, is what both binaries print.
func TestVersionSetAtLinkTime(t *testing.T) {
	dir := t.TempDir()
	const release = "v0.0.0-linktest"
	ldflags := "-X github.com/slipway-dev/slipway/internal/version.Version=" + release
	for bin, pkg := range map[string]string{"slipway": "github.com/slipway-dev/slipway/starter", "slipway-worker": "github.com/slipway-dev/slipway/worker"} {
		out, err := exec.Command("go", "build", "-ldflags", ldflags, "-o", filepath.Join(dir, bin), pkg).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	for _, tc := range []struct {
		bin  string
		args []string
	}{{"slipway", []string{"--version"}}, {"slipway", []string{"version"}}, {"slipway-worker", []string{"--version"}}} {
		out, err := exec.Command(filepath.Join(dir, tc.bin), tc.args...).Output()
		require.NoError(t, err, "%s %v", tc.bin, tc.args)
		require.True(t, strings.HasPrefix(string(out), tc.bin+" "+release+" (commit "), "%s %v: %q", tc.bin, tc.args, out)
	}
	out, err := exec.Command(filepath.Join(dir, "slipway"), "version", "-o", "json").Output()
	require.NoError(t, err)
	var info version.Info
	require.NoError(t, json.Unmarshal(out, &info), "%s", out)
	require.Equal(t, release, info.Version)
	require.NotEmpty(t, info.Commit)
	require.NotEmpty(t, info.GoVersion)
}
