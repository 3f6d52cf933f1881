package devenv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"

	"github.com/slipway-dev/slipway/internal/codec"
)

func TestDevKeyringCreatesTheKeyFileOnce(t *testing.T) {
	t.Setenv(codec.EnvKey, "")
	t.Setenv(codec.EnvKeyFile, "")
	dir := t.TempDir()
	k1, file, err := devKeyring(dir)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, codec.KeyFileName), file)
	st, err := os.Stat(file)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	sealed, err := codec.New(k1).Encode([]*commonpb.Payload{{Data: []byte("x")}})
	require.NoError(t, err)
	k2, again, err := devKeyring(dir)
	require.NoError(t, err)
	require.Equal(t, file, again)
	_, err = codec.New(k2).Decode(sealed)
	require.NoError(t, err, "a restart reuses the same key, so old histories stay readable")
}

func TestDevKeyringPrefersTheEnvironment(t *testing.T) {
	line, err := codec.Generate("ops")
	require.NoError(t, err)
	t.Setenv(codec.EnvKey, line)
	t.Setenv(codec.EnvKeyFile, "")
	dir := t.TempDir()
	k, file, err := devKeyring(dir)
	require.NoError(t, err)
	require.Equal(t, "ops", k.ActiveID())
	require.Empty(t, file)
	require.NoFileExists(t, filepath.Join(dir, codec.KeyFileName))
}
