package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/secrets"
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
