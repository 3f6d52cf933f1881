package terraform

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/testsuite/postgres"
)

func testKeyring(t *testing.T) *codec.Keyring {
	t.Helper()
	key := make([]byte, 32)
	_, err := rand.Read(key)
	require.NoError(t, err)
	k, err := codec.Parse("test", "k1:"+base64.StdEncoding.EncodeToString(key))
	require.NoError(t, err)
	return k
}

// requireDenied says the statement failed for lack of privilege (or of a login), not for any
// other reason.
func requireDenied(t *testing.T, err error, what string) {
	t.Helper()
	var pgErr *pgconn.PgError
	require.Error(t, err, what)
	if errors.As(err, &pgErr) {
		assert.Contains(t, []string{"42501", "28P01"}, pgErr.Code, "%s: %v", what, err)
		return
	}
	assert.Contains(t, err.Error(), "password authentication failed", what)
}

// TestInstanceRoleReachesOnlyItsOwnState: on a real PostgreSQL that asks roles for their
// passwords, the connection terraform gets for instance A (what a hostile configuration reads
// from PG_CONN_STR) uses A's state and nothing else: not B's state, not slipway's tables, not
// B's role; and deprovision drops A's role.
func TestInstanceRoleReachesOnlyItsOwnState(t *testing.T) {
	requireTerraform(t)
	s := postgres.StartWithPasswords(t)
	admin := s.CreateDB(t, "tfstate")
	r := newRunner(t, WithPGBackend(admin), WithPGRoles(testKeyring(t)))
	ctx := context.Background()
	a := Workspace{Tenant: "acme", Name: "web"}
	b := Workspace{Tenant: "other", Name: "db", Schema: "slipway_other_db"}
	for _, ws := range []Workspace{a, b} {
		roundTrip(t, r, ws)
	}
	s.Query(t, "tfstate", "CREATE TABLE public.slipway_secrets (tenant text, name text, sealed bytea)")

	connA, err := r.terraformConn(ctx, a)
	require.NoError(t, err)
	assert.NotContains(t, connA, "postgres@", "terraform does not connect as the operator")
	assert.Contains(t, connA, RoleName(a)+":")
	c, err := pgx.Connect(ctx, connA)
	require.NoError(t, err)
	defer c.Close(ctx)

	var own int
	require.NoError(t, c.QueryRow(ctx, `SELECT count(*) FROM slipway_acme_web.states`).Scan(&own))
	assert.Equal(t, 1, own, "its own state is readable (the role works)")

	for what, sql := range map[string]string{
		"another instance's state":     `SELECT data FROM slipway_other_db.states`,
		"another instance's state row": `DELETE FROM slipway_other_db.states`,
		"slipway's lock records":       `SELECT * FROM public.slipway_terraform_locks`,
		"the sealed role passwords":    `SELECT * FROM public.slipway_terraform_roles`,
		"the shared store":             `SELECT * FROM public.slipway_secrets`,
		"a table of its own in public": `CREATE TABLE public.planted (x int)`,
		"a schema of its own":          `CREATE SCHEMA planted`,
		"another role":                 `SET ROLE ` + RoleName(b),
	} {
		_, err := c.Exec(ctx, sql)
		requireDenied(t, err, what)
	}

	// A's password is not B's: the role names are predictable, their passwords are not.
	connB, err := r.terraformConn(ctx, b)
	require.NoError(t, err)
	asB := strings.Replace(connA, RoleName(a)+":", RoleName(b)+":", 1)
	require.NotEqual(t, connB, asB)
	_, err = pgx.Connect(ctx, asB)
	requireDenied(t, err, "B's role with A's password")

	assert.Equal(t, "8", s.Query(t, "tfstate", "SELECT rolconnlimit FROM pg_roles WHERE rolname = '"+RoleName(a)+"'"),
		"one instance cannot take every connection")

	// Deprovision: the role and its password go; the operator's schema stays.
	require.NoError(t, r.DropRole(ctx, a))
	require.NoError(t, r.DropRole(ctx, a), "dropping again is success")
	assert.Equal(t, "0", s.Query(t, "tfstate", "SELECT count(*) FROM pg_roles WHERE rolname = '"+RoleName(a)+"'"))
	assert.Equal(t, "0", s.Query(t, "tfstate", "SELECT count(*) FROM public.slipway_terraform_roles WHERE role = '"+RoleName(a)+"'"))
	_, err = pgx.Connect(ctx, connA)
	requireDenied(t, err, "a dropped role logs in")
	assert.Equal(t, "1", s.Query(t, "tfstate", "SELECT count(*) FROM pg_roles WHERE rolname = '"+RoleName(b)+"'"), "B keeps its role")
}

func TestRoleName(t *testing.T) {
	assert.Equal(t, "slipway_tf_acme_web", RoleName(Workspace{Tenant: "acme", Name: "web"}))
	long := Workspace{Tenant: strings.Repeat("t", 27), Name: strings.Repeat("n", 27)}
	name := RoleName(long)
	assert.LessOrEqual(t, len(name), maxIdentifier)
	assert.Regexp(t, `^slipway_tf_[0-9a-f]{32}$`, name)
}

func TestWithCredentials(t *testing.T) {
	got, err := withCredentials("postgres://admin:secret@127.0.0.1:5432/db?sslmode=disable&user=x", "slipway_tf_a_b", "abc123")
	require.NoError(t, err)
	assert.Equal(t, "postgres://slipway_tf_a_b:abc123@127.0.0.1:5432/db?sslmode=disable", got)
	got, err = withCredentials("host=127.0.0.1 user=admin password=secret dbname=db", "slipway_tf_a_b", "abc123")
	require.NoError(t, err)
	assert.Equal(t, "host=127.0.0.1 user=admin password=secret dbname=db user=slipway_tf_a_b password=abc123", got)
}

// An operator connection that may not create roles fails the first command, saying what to grant.
func TestInstanceRoleNeedsCreateRole(t *testing.T) {
	requireTerraform(t)
	s := postgres.StartWithPasswords(t)
	s.CreateDB(t, "tfstate")
	s.Query(t, "tfstate", "CREATE ROLE limited LOGIN PASSWORD 'limitedpw'; ALTER DATABASE tfstate OWNER TO limited; ALTER SCHEMA public OWNER TO limited")
	conn := fmt.Sprintf("postgres://limited:limitedpw@%s:%d/tfstate?sslmode=disable", s.Host, s.Port)
	r := newRunner(t, WithPGBackend(conn), WithPGRoles(testKeyring(t)))
	ws := Workspace{Tenant: "acme", Name: "web"}
	ctx := context.Background()
	require.NoError(t, r.Prepare(ctx, ws, twoResources("one")))
	err := r.Init(ctx, ws)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "needs CREATEROLE")
	assert.NotContains(t, err.Error(), "limitedpw")
}
