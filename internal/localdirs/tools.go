// Package toolsdir says where scripts/tools.sh caches the pinned tools it builds:
// outside any clone, so fresh CI clones reuse them.
package localdirs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Tools is $SLIPWAY_TOOLS_DIR, or ~/.cache/slipway/tools (the same rule as tools.sh).
func Tools() string {
	if d := os.Getenv("SLIPWAY_TOOLS_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return filepath.Join(os.TempDir(), "slipway", "tools")
	}
	return filepath.Join(home, ".cache", "slipway", "tools")
}

// ModuleDir is where the Go module cache holds module@version, looked up offline
// (GOPROXY=off): a fallback for files tools.sh copies next to a built binary.
func ModuleDir(module, version string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Dir = os.TempDir() // outside any module, so the project's go.mod plays no part
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s@%s: %v: %s%s", module, version, err, bytes.TrimSpace(out), bytes.TrimSpace(stderr.Bytes()))
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s@%s: no Dir in %q", module, version, out)
	}
	return mod.Dir, nil
}
