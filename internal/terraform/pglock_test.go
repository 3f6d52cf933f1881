package terraform

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// strandedSession stands in for the terraform of a host that vanished without closing TCP:
// a session that holds ws's advisory lock and is never closed by its owner.
func strandedSession(t *testing.T, conn string, ws Workspace, appName string) (*pgx.Conn, int) {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(conn)
	require.NoError(t, err)
	cfg.RuntimeParams["application_name"] = appName
	c, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close(context.Background()) })
	var id int64
	require.NoError(t, c.QueryRow(ctx, "SELECT id FROM "+SchemaName(ws)+".states WHERE name = 'default'").Scan(&id))
	_, err = c.Exec(ctx, "SELECT pg_advisory_lock($1)", id)
	require.NoError(t, err)
	return c, int(c.PgConn().PID())
}

func appliedPG(t *testing.T, db string, ws Workspace) (*Runner, string) {
	t.Helper()
	r, _ := pgRunner(t, db)
	ready(t, r, ws, twoResources("v1"))
	p, err := r.Plan(context.Background(), ws, "first", false)
	require.NoError(t, err)
	_, err = r.Apply(context.Background(), ws, p)
	require.NoError(t, err)
	return r, r.pgConn
}

func TestStrandedPGLockIsReportedAndForcedByID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "stuck"}
	r, conn := appliedPG(t, "tfstate", ws)

	lockID := "6f1c1e0a-5b7e-4f3e-9d61-0a3c2b1d4e5f"
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	stranded, backendPID := strandedSession(t, conn, ws, appPrefix+lockID)
	_, err := stranded.Exec(ctx, `INSERT INTO `+lockTable+` VALUES ($1, $2, $3, $4, $5)`, SchemaName(ws), lockID,
		"lost-host pid 4242 worker w1", "terraform apply for deploy 3-ab attempt 1", created)
	require.NoError(t, err)

	info, held, err := r.Lock(ctx, ws)
	require.NoError(t, err)
	require.True(t, held)
	assert.Equal(t, lockID, info.ID)
	assert.Regexp(t, fmt.Sprintf(`^lost-host pid 4242 worker w1; postgres backend pid %d from 127\.0\.0\.1:\d+$`, backendPID), info.Who)
	assert.Equal(t, "terraform apply for deploy 3-ab attempt 1", info.Operation)
	assert.Equal(t, created.Format(time.RFC3339Nano), info.Created)
	assert.Equal(t, "pg:slipway_acme_stuck", info.Path)

	_, err = r.Plan(ctx, ws, "blocked", false)
	var locked *StateLockedError
	require.ErrorAs(t, err, &locked, "plan fails at once on the lock (-lock-timeout=0)")
	assert.Equal(t, *info, locked.Lock, "the error names the stranded holder")
	assert.Equal(t, lockID, readRecordID(t, r, ws), "a failed command keeps the holder's record")

	err = r.ForceUnlock(ctx, ws, "not-"+lockID)
	var bad *InvalidInputError
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, "lockID", bad.Field)
	assert.Contains(t, bad.Error(), "not-"+lockID)
	assert.Contains(t, bad.Error(), "held lock "+lockID)
	_, held, err = r.Lock(ctx, ws)
	require.NoError(t, err)
	require.True(t, held, "a wrong ID unlocks nothing")

	require.NoError(t, r.ForceUnlock(ctx, ws, lockID))
	_, held, err = r.Lock(ctx, ws)
	require.NoError(t, err)
	assert.False(t, held)
	assert.Error(t, stranded.Ping(ctx), "the stranded session was terminated")
	assert.Empty(t, readRecordID(t, r, ws), "the record is gone")
	require.NoError(t, r.ForceUnlock(ctx, ws, lockID), "unlocking again is fine: nothing is held")

	ready(t, r, ws, twoResources("v2"))
	p, err := r.Plan(ctx, ws, "after", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err, "apply works once the lock is gone")
	assert.Empty(t, readRecordID(t, r, ws), "a finished command deletes its own record")
}

func TestPGLockWithoutARecordIsNamedByItsSession(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := Workspace{Tenant: "acme", Name: "manual"}
	r, conn := appliedPG(t, "tfstate", ws)
	// A record left by an earlier, long gone holder must not be taken for this one's.
	p, err := r.pool(ctx)
	require.NoError(t, err)
	_, err = p.Exec(ctx, `INSERT INTO `+lockTable+` VALUES ($1, 'old-id', 'gone pid 1', 'terraform apply', now())`, SchemaName(ws))
	require.NoError(t, err)
	stranded, backendPID := strandedSession(t, conn, ws, "psql")

	info, held, err := r.Lock(ctx, ws)
	require.NoError(t, err)
	require.True(t, held)
	assert.Equal(t, fmt.Sprintf("pg-backend-%d", backendPID), info.ID)
	assert.Contains(t, info.Who, "no slipway record")
	assert.NotEmpty(t, info.Created, "the session's start time")

	require.NoError(t, r.ForceUnlock(ctx, ws, info.ID))
	assert.Error(t, stranded.Ping(ctx))
	_, held, err = r.Lock(ctx, ws)
	require.NoError(t, err)
	assert.False(t, held)
}

func readRecordID(t *testing.T, r *Runner, ws Workspace) string {
	t.Helper()
	p, err := r.pool(context.Background())
	require.NoError(t, err)
	rec, err := readRecord(context.Background(), p, ws)
	require.NoError(t, err)
	if rec == nil {
		return ""
	}
	return rec.lockID
}
