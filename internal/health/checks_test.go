package health

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// The store check follows the real PostgreSQL: ready while it answers, not once it is gone.
func TestPostgreSQLCheckFollowsTheServer(t *testing.T) {
	pg := postgres.Start(t)
	conn := pg.CreateDB(t, "readyz")
	check, closeStore, err := PostgreSQL(conn)
	require.NoError(t, err)
	defer closeStore()
	require.NoError(t, check(context.Background()))
	pg.Stop(t)
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	require.ErrorContains(t, check(ctx), "store:")
}

// A connection string that does not parse is refused without echoing it: it may hold a password.
func TestPostgreSQLCheckNeverEchoesTheConnectionString(t *testing.T) {
	_, _, err := PostgreSQL("postgres://u:hunter2@[::1")
	require.Error(t, err)
	require.False(t, strings.Contains(err.Error(), "hunter2"), err.Error())
}

func TestWritableDirCheck(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WritableDir(dir)(context.Background()))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "the check leaves nothing behind")
	require.ErrorContains(t, WritableDir(filepath.Join(dir, "gone"))(context.Background()), "state dir:")
}
