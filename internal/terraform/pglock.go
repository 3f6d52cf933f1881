package terraform

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"

	"github.com/slipway-dev/slipway/internal/tracing"
)

// The pg backend locks with session-scoped advisory locks and records no holder, so slipway
// keeps its own record of who runs each state-locking command in lockTable. A worker that
// dies mid-command leaves its record behind; that record is what names a stuck lock.

const (
	lockTable = "public.slipway_terraform_locks"
	// appPrefix marks terraform's own pg session (application_name), tying the session that
	// holds the lock to its record.
	appPrefix = "slipway lock "
	// creationKey is the advisory lock terraform takes while it creates a workspace's state row.
	creationKey int64 = -1
	// tableLockClass/Obj serialise creating lockTable; a two-int4 key (objsubid 2) never
	// collides with terraform's bigint keys (objsubid 1).
	tableLockClass, tableLockObj = 0x736c6970, 0x6c6f636b
	// unlockWait bounds the wait for PostgreSQL to drop a terminated session's locks.
	unlockWait = 5 * time.Second
	// recordTimeout bounds record writes, which also run after a cancelled command.
	recordTimeout = 10 * time.Second
)

// LockNote says who runs a state-locking command and why; it goes into the lock record.
type LockNote struct {
	// Operation is the caller's label, e.g. "deploy 3-ab12 attempt 2".
	Operation string
	// Who adds to "<host> pid <pid>", e.g. the Temporal worker identity.
	Who string
}

type lockNoteKey struct{}

// WithLockNote attaches n to ctx; the runner records it with every state lock it takes.
func WithLockNote(ctx context.Context, n LockNote) context.Context {
	return context.WithValue(ctx, lockNoteKey{}, n)
}

func lockNoteFrom(ctx context.Context) LockNote {
	n, _ := ctx.Value(lockNoteKey{}).(LockNote)
	return n
}

// pgHolder is the PostgreSQL session holding a workspace's advisory lock.
type pgHolder struct {
	pid          int
	client       string
	backendStart time.Time
	appName      string
}

// pgRecord is one row of lockTable.
type pgRecord struct {
	lockID, who, operation string
	created                time.Time
}

// pool opens (once) the runner's own connection pool to the state database.
func (r *Runner) pool(ctx context.Context) (*pgxpool.Pool, error) {
	r.pgMu.Lock()
	defer r.pgMu.Unlock()
	if r.pgPool != nil {
		return r.pgPool, nil
	}
	cfg, err := pgxpool.ParseConfig(r.pgConn)
	if err != nil {
		// pgx's message may quote the connection string, password included.
		return nil, errors.New("PostgreSQL connection string is not valid")
	}
	cfg.MaxConns = 4
	cfg.ConnConfig.RuntimeParams["application_name"] = "slipway"
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := ensureLockTable(ctx, p); err != nil {
		p.Close()
		return nil, err
	}
	if r.roleKeys != nil {
		if err := ensureRoleTable(ctx, p); err != nil {
			p.Close()
			return nil, fmt.Errorf("create %s: %w", roleTable, err)
		}
	}
	r.pgPool = p
	return p, nil
}

// Close releases the runner's PostgreSQL connections, if any.
func (r *Runner) Close() {
	r.pgMu.Lock()
	defer r.pgMu.Unlock()
	if r.pgPool != nil {
		r.pgPool.Close()
		r.pgPool = nil
	}
}

// ensureLockTable creates lockTable; the transaction lock makes concurrent first uses safe
// (CREATE TABLE IF NOT EXISTS alone can still collide in the catalog).
func ensureLockTable(ctx context.Context, p *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, p, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, tableLockClass, tableLockObj); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+lockTable+` (
			schema_name text PRIMARY KEY, lock_id text NOT NULL, who text NOT NULL,
			operation text NOT NULL, created timestamptz NOT NULL)`)
		if err != nil {
			return fmt.Errorf("create %s: %w", lockTable, err)
		}
		return nil
	})
}

// lockKey is the advisory lock terraform takes for ws: its state row's id, or the creation lock.
func lockKey(ctx context.Context, p *pgxpool.Pool, ws Workspace) (int64, error) {
	var id int64
	err := p.QueryRow(ctx, `SELECT id FROM `+pgx.Identifier{SchemaName(ws), "states"}.Sanitize()+` WHERE name = 'default'`).Scan(&id)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return creationKey, nil
	case errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000"): // no table / no schema yet
		return creationKey, nil
	case err != nil:
		return 0, err
	}
	return id, nil
}

// holder finds the session holding advisory lock key; a bigint key k is stored in pg_locks as
// classid = k>>32, objid = k&0xffffffff, objsubid = 1.
func holder(ctx context.Context, p *pgxpool.Pool, key int64) (*pgHolder, error) {
	u := uint64(key)
	var h pgHolder
	err := p.QueryRow(ctx, `
		SELECT a.pid, coalesce(host(a.client_addr) || ':' || a.client_port, 'local socket'),
		       a.backend_start, coalesce(a.application_name, '')
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
		  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND l.classid::int8 = $1 AND l.objid::int8 = $2
		LIMIT 1`, int64(u>>32), int64(u&0xffffffff)).Scan(&h.pid, &h.client, &h.backendStart, &h.appName)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &h, nil
}

func readRecord(ctx context.Context, p *pgxpool.Pool, ws Workspace) (*pgRecord, error) {
	var rec pgRecord
	err := p.QueryRow(ctx, `SELECT lock_id, who, operation, created FROM `+lockTable+` WHERE schema_name = $1`,
		SchemaName(ws)).Scan(&rec.lockID, &rec.who, &rec.operation, &rec.created)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// pgState is the lock as PostgreSQL sees it, with slipway's record when the holder made one.
func (r *Runner) pgState(ctx context.Context, ws Workspace) (*LockInfo, *pgHolder, *pgRecord, error) {
	p, err := r.pool(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := lockKey(ctx, p, ws)
	if err != nil {
		return nil, nil, nil, err
	}
	h, err := holder(ctx, p, key)
	if err != nil || h == nil {
		return nil, nil, nil, err
	}
	rec, err := readRecord(ctx, p, ws)
	if err != nil {
		return nil, nil, nil, err
	}
	// A record whose ID the holder's session does not carry is stale: its writer is gone.
	if rec != nil && h.appName != appPrefix+rec.lockID {
		rec = nil
	}
	session := fmt.Sprintf("postgres backend pid %d from %s", h.pid, h.client)
	info := &LockInfo{ID: fmt.Sprintf("pg-backend-%d", h.pid), Who: session + " (no slipway record)",
		Created: h.backendStart.UTC().Format(time.RFC3339Nano), Path: r.pgLockPath(ws)}
	if rec != nil {
		info.ID, info.Who, info.Operation = rec.lockID, rec.who+"; "+session, rec.operation
		info.Created = rec.created.UTC().Format(time.RFC3339Nano)
	}
	return info, h, rec, nil
}

// pgLock reports the holder of the workspace's advisory lock, if any.
func (r *Runner) pgLock(ctx context.Context, ws Workspace) (*LockInfo, bool, error) {
	info, _, _, err := r.pgState(ctx, ws)
	if err != nil {
		return nil, false, wrapLockErr(ws, err)
	}
	return info, info != nil, nil
}

// beginRecord records this process as about to take ws's lock, and returns the record's lock
// ID ("" when nothing was recorded). A lock someone else holds keeps its record: this
// command will fail on it at once, and that record is what names the holder.
func (r *Runner) beginRecord(ctx context.Context, ws Workspace, command string) (string, error) {
	if r.Backend() != backendPG {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	p, err := r.pool(ctx)
	if err != nil {
		return "", err
	}
	key, err := lockKey(ctx, p, ws)
	if err != nil {
		return "", err
	}
	if h, err := holder(ctx, p, key); err != nil || h != nil {
		return "", err
	}
	note := lockNoteFrom(ctx)
	host, _ := os.Hostname()
	who := fmt.Sprintf("%s pid %d", host, os.Getpid())
	if note.Who != "" {
		who += " " + note.Who
	}
	operation := "terraform " + command
	if note.Operation != "" {
		operation += " for " + note.Operation
	}
	id := uuid.NewString()
	_, err = p.Exec(ctx, `INSERT INTO `+lockTable+` (schema_name, lock_id, who, operation, created)
		VALUES ($1, $2, $3, $4, now())
		ON CONFLICT (schema_name) DO UPDATE SET lock_id = excluded.lock_id, who = excluded.who,
			operation = excluded.operation, created = excluded.created`,
		SchemaName(ws), id, who, operation)
	if err != nil {
		return "", err
	}
	return id, nil
}

// endRecord deletes the record if it is still ours; it runs even after a cancel.
func (r *Runner) endRecord(ctx context.Context, ws Workspace, id string) error {
	if id == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	p, err := r.pool(ctx)
	if err != nil {
		return err
	}
	_, err = p.Exec(ctx, `DELETE FROM `+lockTable+` WHERE schema_name = $1 AND lock_id = $2`, SchemaName(ws), id)
	return err
}

// recorded runs a state-locking terraform command between beginRecord and endRecord, with
// terraform's pg session named after the record so Lock can tell the record is the holder's.
func (c *call) recorded(ctx context.Context, run func() error) (err error) {
	// Every state-locking command (init, plan, apply, destroy, state push) is a span of its activity's trace.
	ctx, span := tracing.Start(ctx, "terraform "+c.command, attribute.String("slipway.instance", c.ws.String()),
		attribute.String("terraform.backend", c.r.Backend()))
	defer func() { tracing.End(span, err) }()
	id, err := c.r.beginRecord(ctx, c.ws, c.command)
	if err != nil {
		return &CommandError{Command: c.command, Workspace: c.ws, Err: fmt.Errorf("lock record in %s: %w", lockTable, err)}
	}
	env := maps.Clone(c.env)
	marker := runMarker()
	env[EnvRunMarker] = marker
	if id != "" {
		env["PG_CONN_STR"] = withAppName(env["PG_CONN_STR"], appPrefix+id)
	}
	if err := c.tf.SetEnv(env); err != nil {
		return &CommandError{Command: c.command, Workspace: c.ws, Err: err}
	}
	c.runEnv = env
	runErr := run()
	sweep(marker)
	if err := c.r.endRecord(ctx, c.ws, id); err != nil && runErr == nil {
		return &CommandError{Command: c.command, Workspace: c.ws, Err: fmt.Errorf("lock record %s not deleted: %w", id, err)}
	}
	return runErr
}

// withAppName sets application_name in a URL or key=value connection string (later keys win).
func withAppName(conn, name string) string {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		if u, err := url.Parse(conn); err == nil {
			q := u.Query()
			q.Set("application_name", name)
			u.RawQuery = q.Encode()
			return u.String()
		}
	}
	return conn + " application_name='" + name + "'"
}

// whoRE reads "<host> pid <pid>" back out of a record's who.
var whoRE = regexp.MustCompile(`^(\S+) pid (\d+)`)

// aliveHere reports whether the record's writer runs on this host and is still alive.
func aliveHere(rec *pgRecord) (string, int, bool) {
	m := whoRE.FindStringSubmatch(rec.who)
	if m == nil {
		return "", 0, false
	}
	pid, err := strconv.Atoi(m[2])
	host, _ := os.Hostname()
	if err != nil || m[1] != host || pid <= 0 {
		return m[1], pid, false
	}
	err = syscall.Kill(pid, 0)
	return m[1], pid, err == nil || errors.Is(err, syscall.EPERM)
}

// pgForceUnlock ends a pg lock whose holder is gone but whose session PostgreSQL still keeps
// (a host lost without closing TCP): terraform's own force-unlock first, which is the
// documented path but a no-op on pg, then terminating the holder's session.
func (r *Runner) pgForceUnlock(ctx context.Context, ws Workspace, lockID string) error {
	fail := func(format string, args ...any) error {
		return &CommandError{Command: "force-unlock", Workspace: ws, Err: fmt.Errorf(format, args...)}
	}
	info, h, rec, err := r.pgState(ctx, ws)
	if err != nil {
		return fail("read lock: %w", err)
	}
	if info == nil {
		return r.deleteRecord(ctx, ws, lockID, fail)
	}
	if info.ID != lockID {
		return &InvalidInputError{Field: "lockID", Value: lockID, Reason: "does not match the held lock " + info.ID}
	}
	if rec != nil {
		if host, pid, alive := aliveHere(rec); alive {
			return &HolderAliveError{Workspace: ws, Lock: *info, Host: host, PID: pid}
		}
	}
	if c, err := r.open(ctx, ws, "force-unlock"); err == nil {
		defer c.close()
		if err := c.tf.ForceUnlock(ctx, lockID); err != nil {
			return c.fail(err)
		}
	} else if !errors.Is(err, errNotPrepared) {
		return err
	}
	p, err := r.pool(ctx)
	if err != nil {
		return fail("connect: %w", err)
	}
	var terminated bool
	if err := p.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, h.pid).Scan(&terminated); err != nil {
		return fail("pg_terminate_backend(%d) of lock %s: %w", h.pid, lockID, err)
	}
	key, err := lockKey(ctx, p, ws)
	if err != nil {
		return fail("read lock: %w", err)
	}
	deadline := time.Now().Add(unlockWait)
	for {
		still, err := holder(ctx, p, key)
		if err != nil {
			return fail("read lock: %w", err)
		}
		if still == nil {
			break
		}
		if time.Now().After(deadline) {
			return fail("lock %s still held by postgres backend pid %d %v after pg_terminate_backend(%d) returned %v",
				lockID, still.pid, unlockWait, h.pid, terminated)
		}
		select {
		case <-ctx.Done():
			return fail("waiting for lock %s to be released: %w", lockID, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return r.deleteRecord(ctx, ws, lockID, fail)
}

func (r *Runner) deleteRecord(ctx context.Context, ws Workspace, lockID string, fail func(string, ...any) error) error {
	if err := r.endRecord(ctx, ws, lockID); err != nil {
		return fail("lock %s released but its record not deleted: %w", lockID, err)
	}
	return nil
}
