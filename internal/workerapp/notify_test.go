package workerapp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

// A bad sinks file stops the worker with the variable and the field; a good one gives the
// notifier the forge as its reporter.
func TestNotifyFileIsLoadedOrRefusedNamingTheField(t *testing.T) {
	dir := t.TempDir()
	fg, err := localgit.Init(filepath.Join(dir, "repo.git"), map[string][]byte{"README": []byte("x\n")})
	require.NoError(t, err)

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("sinks:\n  - name: ops\n    kind: webhook\n    url: http://hooks.example.com/x\n    secretEnv: SLIPWAY_TEST_SECRET\n"), 0o600))
	t.Setenv("SLIPWAY_TEST_SECRET", "k")
	_, err = newNotifier(Config{NotifyFile: bad}, fg)
	require.ErrorContains(t, err, "SLIPWAY_NOTIFY_FILE")
	require.ErrorContains(t, err, "sinks[0].url")

	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte("sinks:\n  - name: git\n    kind: forge\n"), 0o600))
	n, err := newNotifier(Config{NotifyFile: good}, fg)
	require.NoError(t, err)
	require.Len(t, n.Config.Sinks, 1)

	none, err := newNotifier(Config{}, fg)
	require.NoError(t, err)
	require.Nil(t, none, "no file, no sinks")
}
