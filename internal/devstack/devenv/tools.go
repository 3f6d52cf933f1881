// Package devenv starts (or finds) the development infrastructure slipway runs on
// locally and in tests: a real Temporal dev server built from the pinned CLI.
package devenv

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/localdirs"
)

// TemporalVersion is the temporal CLI release that scripts/tools.sh builds and caches.
const TemporalVersion = "v1.5.1"

// ToolsDir is where scripts/tools.sh caches built tools: $SLIPWAY_TOOLS_DIR or
// ~/.cache/slipway/tools. It lives outside any clone so fresh CI clones reuse it.
func ToolsDir() string { return localdirs.Tools() }

// CachedTemporal is the path scripts/tools.sh installs the pinned temporal CLI to.
func CachedTemporal() string {
	return filepath.Join(ToolsDir(), "temporal-"+TemporalVersion, "temporal")
}

// FindTemporal returns the temporal CLI to run: $SLIPWAY_TEMPORAL, else the pinned
// build in ToolsDir, else any `temporal` on PATH.
func FindTemporal() (string, error) {
	if p := os.Getenv("SLIPWAY_TEMPORAL"); p != "" {
		// An explicit choice that is wrong must not silently fall back to another binary.
		if isExecutable(p) {
			return p, nil
		}
		return "", &NotFoundError{Searched: []string{"$SLIPWAY_TEMPORAL=" + p}}
	}
	searched := []string{CachedTemporal()}
	if isExecutable(searched[0]) {
		return searched[0], nil
	}
	p, err := exec.LookPath("temporal")
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, fs.ErrNotExist) {
		searched = append(searched, "PATH ("+err.Error()+")")
	} else {
		searched = append(searched, "`temporal` on PATH")
	}
	return "", &NotFoundError{Searched: searched}
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
