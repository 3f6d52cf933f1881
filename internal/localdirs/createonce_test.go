package localdirs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateOnceWritesWholeOrKeepsWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "codec.keys")
	created, err := CreateOnce(path, []byte("first\n"), 0o600)
	require.NoError(t, err)
	assert.True(t, created)
	created, err = CreateOnce(path, []byte("second\n"), 0o600)
	require.NoError(t, err)
	assert.False(t, created)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "first\n", string(b))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left")
}
