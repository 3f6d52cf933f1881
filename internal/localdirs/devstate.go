// Package statedir says where the embedded default keeps its state, so the CLI,
// the client (its dev key fallback) and devenv agree without importing each other.
package localdirs

import (
	"os"
	"path/filepath"
)

// DevState is the default state dir of `slipway dev`: $XDG_STATE_HOME/slipway/dev,
// else ~/.local/state/slipway/dev, else .slipway when there is no home.
func DevState() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "slipway", "dev")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".slipway"
	}
	return filepath.Join(home, ".local", "state", "slipway", "dev")
}
