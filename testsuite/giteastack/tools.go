package giteastack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/localdirs"
)

const (
	// Version is what scripts/tools.sh builds (target gitea).
	Version = "v1.26.4"

	giteaModule = "code.gitea.io/gitea"
)

// staticDirs are what a binary built without the bindata tag reads from STATIC_ROOT_PATH.
var staticDirs = []string{"templates", "options", "public"}

// tools are the absolute paths Start needs.
type tools struct {
	gitea  string
	static string // STATIC_ROOT_PATH: holds staticDirs
}

// findTools looks in the tool cache for the binary and its static files.
func findTools(toolsDir string) (tools, error) {
	dir := filepath.Join(toolsDir, "gitea-"+Version)
	tl := tools{gitea: filepath.Join(dir, "gitea")}
	if err := executable(tl.gitea); err != nil {
		return tl, &MissingToolError{Component: "gitea", Path: tl.gitea, Err: err}
	}
	static, err := findStatic(filepath.Join(dir, "static"))
	if err != nil {
		return tl, err
	}
	tl.static = static
	return tl, nil
}

// findStatic prefers the copy tools.sh keeps beside the binary, else the module cache (never the network).
func findStatic(cached string) (string, error) {
	if hasStatic(cached) == nil {
		return cached, nil
	}
	dir, err := localdirs.ModuleDir(giteaModule, Version)
	if err != nil {
		return "", &MissingToolError{Component: "gitea static files", Path: cached + " or the Go module cache", Err: err}
	}
	if err := hasStatic(dir); err != nil {
		return "", &MissingToolError{Component: "gitea static files", Path: dir, Err: err}
	}
	return dir, nil
}

func hasStatic(dir string) error {
	for _, d := range staticDirs {
		fi, err := os.Stat(filepath.Join(dir, d))
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", filepath.Join(dir, d))
		}
	}
	return nil
}

func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}
