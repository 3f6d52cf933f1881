package postgres

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func launchOrSkip(t *testing.T, o Options) *Server {
	t.Helper()
	s, err := Launch(o)
	var missing *MissingError
	if errors.As(err, &missing) && os.Getenv("SLIPWAY_REQUIRE_POSTGRES") != "1" {
		t.Skip(err.Error())
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// reachableDir is a fresh directory the server's OS user can traverse (test temp dirs are 0700).
func reachableDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "slipway-pgkept-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestKeptDataDirSurvivesARestart(t *testing.T) {
	data := filepath.Join(reachableDir(t), "state", "postgres")
	s := launchOrSkip(t, Options{DataDir: data})
	assert.Equal(t, data, s.DataDir)
	assert.Equal(t, data+".log", s.LogPath)
	_, err := s.CreateDatabase("kept")
	require.NoError(t, err)
	_, err = s.Psql("kept", "create table t (v text); insert into t values ('still here')")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.False(t, s.Running())
	assert.DirExists(t, data, "Close keeps a kept data dir")

	again := launchOrSkip(t, Options{DataDir: data})
	out, err := again.Psql("kept", "select v from t")
	require.NoError(t, err)
	assert.Equal(t, "still here", out)
}

func TestThrowawayServerRemovesItsDirectory(t *testing.T) {
	s := launchOrSkip(t, Options{})
	base := filepath.Dir(s.DataDir)
	out, err := s.Psql("postgres", "show fsync")
	require.NoError(t, err)
	assert.Equal(t, "off", out)
	require.NoError(t, s.Close())
	assert.NoDirExists(t, base)
}

func TestCheckDataDirNamesTheBlockingParent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root runs the server as another OS user")
	}
	closed := filepath.Join(reachableDir(t), "private")
	require.NoError(t, os.Mkdir(closed, 0o700))
	err := CheckDataDir(filepath.Join(closed, "state", "postgres"))
	var dde *DataDirError
	require.ErrorAs(t, err, &dde)
	assert.Equal(t, closed, dde.Blocker)
	assert.Contains(t, err.Error(), "-rwx------")

	_, err = Launch(Options{DataDir: filepath.Join(closed, "postgres")})
	require.ErrorAs(t, err, &dde)
	require.NoError(t, CheckDataDir(filepath.Join(reachableDir(t), "postgres")))
}
