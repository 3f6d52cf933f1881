package terraform

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/postgres"
)

// secretMarker rides in the connection string so a copy of it on disk can be found.
const secretMarker = "slipwaysecretmarker"

func pgRunner(t *testing.T, db string) (*Runner, *postgres.Server) {
	requireTerraform(t)
	s := postgres.Start(t)
	conn := s.CreateDB(t, db) + "&application_name=" + secretMarker
	r := newRunner(t, WithPGBackend(conn))
	require.Equal(t, "pg", r.Backend())
	return r, s
}

func TestRoundTripPG(t *testing.T) {
	t.Parallel()
	r, s := pgRunner(t, "tfstate")
	ws := Workspace{Tenant: "acme", Name: "web-1"}
	roundTrip(t, r, ws)

	assert.Equal(t, "default", s.Query(t, "tfstate", "select name from slipway_acme_web_1.states"),
		"state lives in the workspace's schema")
	_, err := os.Stat(r.statePath(ws))
	assert.ErrorIs(t, err, os.ErrNotExist, "no local state with the pg backend")
	backend, err := os.ReadFile(filepath.Join(r.Dir(ws), BackendFile))
	require.NoError(t, err)
	assert.Contains(t, string(backend), `backend "pg" {}`)
	assertNotOnDisk(t, r.stateDir, secretMarker)
}

func TestLockHeldThenGracefulCancelPG(t *testing.T) {
	t.Parallel()
	r, s := pgRunner(t, "tfstate")
	ws := Workspace{Tenant: "acme", Name: "locked"}
	info := lockedApplyThenCancel(t, r, ws)
	// slipway's lock record names the holder the pg backend does not.
	host, _ := os.Hostname()
	assert.Regexp(t, `^[0-9a-f-]{36}$`, info.ID)
	assert.Contains(t, info.Who, fmt.Sprintf("%s pid %d", host, os.Getpid()))
	assert.Contains(t, info.Who, "postgres backend pid")
	assert.Equal(t, "terraform apply", info.Operation)
	assert.NotEmpty(t, info.Created)
	assert.Equal(t, "pg:slipway_acme_locked", info.Path)
	assert.Equal(t, "0", s.Query(t, "tfstate", "select count(*) from public.slipway_terraform_locks"),
		"the cancelled command deleted its record")
	require.NoError(t, r.ForceUnlock(context.Background(), ws, "any-id"), "nothing left to unlock")
}

// assertNotOnDisk fails if needle is in any file under root, including inside plan zips.
func assertNotOnDisk(t *testing.T, root, needle string) {
	t.Helper()
	checked := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		assert.NotContains(t, string(data), needle, p)
		if strings.HasSuffix(p, planExt) {
			zr, err := zip.OpenReader(p)
			require.NoError(t, err, p)
			defer zr.Close()
			for _, f := range zr.File {
				rc, err := f.Open()
				require.NoError(t, err)
				entry, err := io.ReadAll(rc)
				rc.Close()
				require.NoError(t, err)
				assert.NotContains(t, string(entry), needle, p+"!"+f.Name)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Positive(t, checked)
}

// Two new workspaces in one database: once init has made each one's state row, the first
// apply of one holds only its own row's lock, never the database-wide creation lock.
func TestPGInitGivesTheWorkspaceItsOwnLock(t *testing.T) {
	t.Parallel()
	r, _ := pgRunner(t, "owned")
	ctx := context.Background()
	a, b := Workspace{Tenant: "acme", Name: "a"}, Workspace{Tenant: "acme", Name: "b"}
	for _, ws := range []Workspace{a, b} {
		ready(t, r, ws, twoResources("one"))
		p, err := r.pool(ctx)
		require.NoError(t, err)
		key, err := lockKey(ctx, p, ws)
		require.NoError(t, err)
		require.NotEqual(t, creationKey, key, "%s has a state row after init", ws)
	}
	// a's plan runs while b is locked by a foreign session on b's own key: a is not blocked.
	p, err := r.pool(ctx)
	require.NoError(t, err)
	keyB, err := lockKey(ctx, p, b)
	require.NoError(t, err)
	conn, err := p.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "SELECT pg_advisory_lock($1)", keyB)
	require.NoError(t, err)
	defer conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", keyB) //nolint:errcheck
	_, err = r.Plan(ctx, a, "deploy", false)
	require.NoError(t, err)
	_, err = r.Plan(ctx, b, "deploy", false)
	var locked *StateLockedError
	require.ErrorAs(t, err, &locked)
	require.False(t, locked.CreationContention(), "b's own lock, not the creation lock: %v", err)
}
