// Package toolsdir says where scripts/tools.sh caches the pinned tools it builds:
// outside any clone, so fresh CI clones reuse them.
package toolsdir

import (
	"os"
	"path/filepath"
)

// Dir is $SLIPWAY_TOOLS_DIR, or ~/.cache/slipway/tools (the same rule as tools.sh).
func Dir() string {
	if d := os.Getenv("SLIPWAY_TOOLS_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "slipway", "tools")
	}
	return filepath.Join(home, ".cache", "slipway", "tools")
}
