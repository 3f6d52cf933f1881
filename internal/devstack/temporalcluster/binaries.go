package temporalcluster

import (
	"os"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/localdirs"
)

const (
	// ServerVersion is the go.temporal.io/server release scripts/tools.sh builds and caches.
	ServerVersion = "v1.29.1"
	// EnvServerDir names a directory holding temporal-server, temporal-sql-tool and schema/,
	// laid out like the cache; it replaces the cache, it never falls back to it.
	EnvServerDir = "SLIPWAY_TEMPORAL_SERVER_DIR"

	serverModule = "go.temporal.io/server"
	serverBin    = "temporal-server"
	sqlToolBin   = "temporal-sql-tool"
)

// Binaries are the files one server release needs.
type Binaries struct {
	Server    string // go.temporal.io/server/cmd/server
	SQLTool   string // go.temporal.io/server/cmd/tools/sql
	SchemaDir string // holds postgresql/v12/{temporal,visibility}/versioned
}

// CachedDir is where scripts/tools.sh puts the server release.
func CachedDir() string {
	return filepath.Join(localdirs.Tools(), "temporal-server-"+ServerVersion)
}

// FindBinaries locates the release in dir; "" = $SLIPWAY_TEMPORAL_SERVER_DIR, else CachedDir.
// The schema falls back to the Go module cache when the directory has no copy.
func FindBinaries(dir string) (Binaries, error) {
	where := "Options.BinDir"
	if dir == "" {
		dir, where = CachedDir(), "the tools cache"
		if env := os.Getenv(EnvServerDir); env != "" {
			dir, where = env, "$"+EnvServerDir
		}
	}
	b := Binaries{
		Server:    filepath.Join(dir, serverBin),
		SQLTool:   filepath.Join(dir, sqlToolBin),
		SchemaDir: filepath.Join(dir, "schema"),
	}
	for _, tool := range []struct{ name, path string }{{serverBin, b.Server}, {sqlToolBin, b.SQLTool}} {
		if !isExecutable(tool.path) {
			return b, &MissingBinaryError{Tool: tool.name, Path: tool.path, Where: where}
		}
	}
	if !isDir(filepath.Join(b.SchemaDir, "postgresql", "v12", "temporal", "versioned")) {
		mod, err := localdirs.ModuleDir(serverModule, ServerVersion)
		if err != nil || !isDir(filepath.Join(mod, "schema", "postgresql", "v12", "temporal", "versioned")) {
			return b, &MissingBinaryError{Tool: "schema", Path: filepath.Join(b.SchemaDir, "postgresql", "v12"), Where: where}
		}
		b.SchemaDir = filepath.Join(mod, "schema")
	}
	return b, nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
