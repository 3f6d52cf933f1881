package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/golden with what the tests print")

// golden compares got byte for byte with testdata/golden/NAME. With -update
// (go test ./internal/cli -run Golden -update) it writes got there instead.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *updateGolden {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file: run go test ./internal/cli -run %s -update to write it", t.Name())
	// Compared as strings, byte for byte, so a difference shows as a diff.
	require.Equal(t, string(want), string(got), "%s differs from the output (-update rewrites it)", path)
}
