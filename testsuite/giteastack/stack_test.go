package giteastack

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartNamesMissingBinary(t *testing.T) {
	_, err := Start(context.Background(), Options{Dir: t.TempDir(), ToolsDir: t.TempDir()})
	var missing *MissingToolError
	require.True(t, errors.As(err, &missing), "want *MissingToolError, got %v", err)
	assert.Equal(t, "gitea", missing.Component)
	assert.Contains(t, err.Error(), "scripts/tools.sh gitea")
}

func TestStartNamesEmptyDir(t *testing.T) {
	_, err := Start(context.Background(), Options{ToolsDir: t.TempDir()})
	var invalid *InvalidError
	require.True(t, errors.As(err, &invalid), "want *InvalidError, got %v", err)
	assert.Equal(t, "Options.Dir", invalid.Field)
}

func TestFindStaticPrefersCachedCopy(t *testing.T) {
	dir := t.TempDir()
	for _, d := range staticDirs {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	got, err := findStatic(dir)
	require.NoError(t, err)
	assert.Equal(t, dir, got)
}

func TestAppINIBindsLoopbackOnly(t *testing.T) {
	ini := appINI("/d", "/static", 4321)
	for _, want := range []string{"HTTP_ADDR = 127.0.0.1", "ROOT_URL = http://127.0.0.1:4321/",
		"STATIC_ROOT_PATH = /static", "INSTALL_LOCK = true", "ALLOWED_HOST_LIST = loopback", "DB_TYPE = sqlite3"} {
		assert.True(t, strings.Contains(ini, want), "app.ini lacks %q", want)
	}
}
