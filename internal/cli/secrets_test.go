package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/secrets"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

func TestSecretsPrintsSortedWithAnAuditLine(t *testing.T) {
	t.Setenv("SLIPWAY_STORE_PG_CONN", "")
	t.Setenv("SLIPWAY_TF_PG_CONN", "")
	ctx := context.Background()
	dir := t.TempDir()
	store := secrets.NewStore(filepath.Join(dir, "secrets"))
	_, err := store.Ensure(ctx, "acme", "web", []string{"z_api_key", "admin_password"})
	require.NoError(t, err)
	want, err := store.Get(ctx, "acme", "web")
	require.NoError(t, err)

	code, out, errs := run(t, "secrets", "acme/web", "--state-dir", dir, "--actor", "ops@host")
	require.Equal(t, ExitOK, code, errs)
	require.Equal(t, "admin_password="+want["admin_password"]+"\nz_api_key="+want["z_api_key"]+"\n", out)
	require.Equal(t, "secrets of acme/web read by ops@host\n", errs)

	t.Setenv("SLIPWAY_STATE_DIR", dir)
	code, out, errs = run(t, "secrets", "acme/web", "--json")
	require.Equal(t, ExitOK, code, errs)
	var got map[string]string
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, want, got)
}

func TestSecretsOfAnInstanceWithoutAny(t *testing.T) {
	t.Setenv("SLIPWAY_STORE_PG_CONN", "")
	t.Setenv("SLIPWAY_TF_PG_CONN", "")
	dir := t.TempDir()
	code, out, errs := run(t, "secrets", "acme/none", "--state-dir", dir)
	require.Equal(t, ExitFailed, code)
	require.Empty(t, out)
	require.Contains(t, errs, "acme/none")
	require.Contains(t, errs, filepath.Join(dir, "secrets"))
	require.NotContains(t, errs, "read by", "nothing was read")
}

// With a shared store, `slipway secrets` needs no worker's disk: the database and the key.
func TestSecretsReadsTheSharedStore(t *testing.T) {
	ctx := context.Background()
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "slipway")
	line, err := codec.Generate("k1")
	require.NoError(t, err)
	t.Setenv(codec.EnvKey, line)
	t.Setenv(codec.EnvKeyFile, "")
	keys, err := codec.FromEnv()
	require.NoError(t, err)
	s, err := store.OpenPG(ctx, conn, keys)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Ensure(ctx, "acme", "web", []string{"admin_password"})
	require.NoError(t, err)
	want, err := s.Get(ctx, "acme", "web")
	require.NoError(t, err)

	code, out, errs := run(t, "secrets", "acme/web", "--store-pg-conn", conn, "--state-dir", t.TempDir())
	require.Equal(t, ExitOK, code, errs)
	require.Equal(t, "admin_password="+want["admin_password"]+"\n", out)

	other, err := codec.Generate("k2")
	require.NoError(t, err)
	t.Setenv(codec.EnvKey, other)
	code, out, errs = run(t, "secrets", "acme/web", "--store-pg-conn", conn)
	require.Equal(t, ExitFailed, code)
	require.Empty(t, out, "nothing half-decrypted is printed")
	require.Contains(t, errs, `key id "k1"`)
}
