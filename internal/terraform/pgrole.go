package terraform

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/slipway-dev/slipway/internal/codec"
)

// With WithPGRoles, terraform reaches PostgreSQL as one role per instance that can use only
// that instance's schema: a configuration that reads its PG_CONN_STR (a local-exec, a
// postgresql provider) cannot read or write another instance's state or slipway's tables.
// The runner's own connection (the operator's) creates the schema, the states table and the
// role, so terraform creates nothing (skip_*_creation). Each role's password is random, made
// once, and kept sealed with the payload keyring in roleTable, which only the operator's
// connection can read: any worker opens it, and rotating the keyring re-seals nothing.

const (
	roleTable = "public.slipway_terraform_roles"
	// rolePrefix starts every role slipway makes; the rest names the schema, or hashes it.
	rolePrefix = "slipway_tf_"
	// roleLockObj serialises role and schema creation (the shared sequence, the catalog).
	roleLockObj = tableLockObj + 1
	// statesTable and statesIndex are what terraform's pg backend would create.
	statesTable = "states"
	statesIndex = "states_by_name"
	globalSeq   = "public.global_states_id_seq"
	// roleConnLimit bounds one instance's sessions, so its terraform cannot take every
	// connection the server has; terraform's own runs use one or two.
	roleConnLimit = 8
)

// WithPGRoles makes terraform connect as the instance's own role (see above); keys seals the
// roles' passwords. The pg backend's connection must be allowed to create roles (CREATEROLE)
// and schemas.
func WithPGRoles(keys *codec.Keyring) Option {
	return func(r *Runner) {
		if keys == nil {
			r.optErr = errors.Join(r.optErr, &InvalidInputError{Field: "WithPGRoles keys", Value: "<nil>", Reason: "must not be nil"})
		}
		r.roleKeys = keys
	}
}

// RoleName is the PostgreSQL role terraform uses for ws with WithPGRoles: slipway_tf_ and the
// schema without its slipway_ prefix, or a hash of the schema when that would be too long.
func RoleName(ws Workspace) string {
	schema := SchemaName(ws)
	if name := rolePrefix + strings.TrimPrefix(schema, "slipway_"); len(name) <= maxIdentifier {
		return name
	}
	sum := sha256.Sum256([]byte(schema))
	return rolePrefix + hex.EncodeToString(sum[:16]) // no '_' after the prefix: never a schema-derived name
}

// terraformConn is the pg backend's connection for ws's terraform: the operator's, or with
// WithPGRoles the same server and database as the instance's role, created first if missing.
func (r *Runner) terraformConn(ctx context.Context, ws Workspace) (string, error) {
	if r.roleKeys == nil {
		return r.pgConn, nil
	}
	role := RoleName(ws)
	password, err := r.ensureRole(ctx, ws, role)
	if err != nil {
		return "", fmt.Errorf("PostgreSQL role %s for %s: %w", role, ws, err)
	}
	return withCredentials(r.pgConn, role, password)
}

// ensureRole makes ws's schema, states table and role when any is missing, and returns the
// role's password. The common case is one query.
func (r *Runner) ensureRole(ctx context.Context, ws Workspace, role string) (string, error) {
	p, err := r.pool(ctx)
	if err != nil {
		return "", err
	}
	var sealed []byte
	var ready bool
	err = p.QueryRow(ctx, `SELECT t.sealed, EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)
		AND EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $2)
		FROM `+roleTable+` t WHERE t.role = $1`, role, SchemaName(ws)).Scan(&sealed, &ready)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return "", err
	}
	if !ready {
		if sealed, err = r.createRole(ctx, p, ws, role); err != nil {
			return "", err
		}
	}
	return r.openPassword(role, sealed)
}

// createRole makes the schema, table and role and grants the role only what terraform needs
// on them, in one transaction under a lock, so racing workers agree on one password.
func (r *Runner) createRole(ctx context.Context, p *pgxpool.Pool, ws Workspace, role string) ([]byte, error) {
	var sealed []byte
	err := pgx.BeginFunc(ctx, p, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, tableLockClass, roleLockObj); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `SELECT sealed FROM `+roleTable+` WHERE role = $1`, role).Scan(&sealed)
		if errors.Is(err, pgx.ErrNoRows) {
			buf := make([]byte, 32)
			if _, err := rand.Read(buf); err != nil {
				return err
			}
			s, err := r.roleKeys.Seal([]byte(hex.EncodeToString(buf)), roleAAD(role))
			if err != nil {
				return err
			}
			if sealed, err = json.Marshal(s); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO `+roleTable+` (role, sealed) VALUES ($1, $2)`, role, sealed); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		password, err := r.openPassword(role, sealed)
		if err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
			return err
		}
		rl, schema := pgx.Identifier{role}.Sanitize(), pgx.Identifier{SchemaName(ws)}.Sanitize()
		verb := "CREATE"
		if exists {
			verb = "ALTER"
		}
		// The password is hex (no quotes): safe as a literal, which ALTER/CREATE ROLE require.
		stmts := []string{
			verb + ` ROLE ` + rl + ` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS CONNECTION LIMIT ` +
				strconv.Itoa(roleConnLimit) + ` PASSWORD '` + password + `'`,
			// The operator's connection joins the role, so it can end the role's sessions
			// (force-unlock) and drop what it was granted (deprovision) without being superuser.
			`GRANT ` + rl + ` TO CURRENT_USER`,
			`CREATE SCHEMA IF NOT EXISTS ` + schema,
			`REVOKE ALL ON SCHEMA ` + schema + ` FROM PUBLIC`,
			`CREATE SEQUENCE IF NOT EXISTS ` + globalSeq + ` AS bigint`,
			`CREATE TABLE IF NOT EXISTS ` + schema + `.` + statesTable + ` (id bigint NOT NULL DEFAULT nextval('` + globalSeq +
				`') PRIMARY KEY, name text UNIQUE, data text)`,
			`CREATE UNIQUE INDEX IF NOT EXISTS ` + statesIndex + ` ON ` + schema + `.` + statesTable + ` (name)`,
			`GRANT USAGE ON SCHEMA ` + schema + ` TO ` + rl,
			`GRANT SELECT, INSERT, UPDATE, DELETE ON ` + schema + `.` + statesTable + ` TO ` + rl,
			`GRANT USAGE ON SEQUENCE ` + globalSeq + ` TO ` + rl,
		}
		for i, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				var pgErr *pgconn.PgError
				if i == 0 && errors.As(err, &pgErr) && pgErr.Code == "42501" {
					return fmt.Errorf("%s ROLE %s: %w (the role of SLIPWAY_TF_PG_CONN needs CREATEROLE: ALTER ROLE ... CREATEROLE)", verb, rl, err)
				}
				return fmt.Errorf("%s: %w", strings.SplitN(s, " PASSWORD", 2)[0], err)
			}
		}
		return nil
	})
	return sealed, err
}

// DropRole removes ws's terraform role and its password once the instance is gone; a role
// that does not exist is success. Its state schema stays, as the operator's.
func (r *Runner) DropRole(ctx context.Context, ws Workspace) error {
	if err := ws.validate(); err != nil {
		return err
	}
	if r.roleKeys == nil || r.pgConn == "" {
		return nil
	}
	p, err := r.pool(ctx)
	if err != nil {
		return &CommandError{Command: "drop role", Workspace: ws, Err: err}
	}
	role := RoleName(ws)
	err = pgx.BeginFunc(ctx, p, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, tableLockClass, roleLockObj); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role).Scan(&exists); err != nil {
			return err
		}
		if exists {
			rl := pgx.Identifier{role}.Sanitize()
			// DROP OWNED revokes what the role was granted in this database; it owns nothing.
			for _, s := range []string{`DROP OWNED BY ` + rl, `DROP ROLE ` + rl} {
				if _, err := tx.Exec(ctx, s); err != nil {
					return fmt.Errorf("%s: %w", s, err)
				}
			}
		}
		_, err := tx.Exec(ctx, `DELETE FROM `+roleTable+` WHERE role = $1`, role)
		return err
	})
	if err != nil {
		return &CommandError{Command: "drop role", Workspace: ws, Err: err}
	}
	return nil
}

func (r *Runner) openPassword(role string, sealed []byte) (string, error) {
	var s codec.Sealed
	if err := json.Unmarshal(sealed, &s); err != nil {
		return "", fmt.Errorf("%s row of %s is not a sealed value: %w", roleTable, role, err)
	}
	plain, err := r.roleKeys.Open(s, roleAAD(role))
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

func roleAAD(role string) []byte { return []byte(roleTable + "\x00" + role) }

// ensureRoleTable creates roleTable, readable only by the operator's connection (its owner).
func ensureRoleTable(ctx context.Context, p *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, p, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, tableLockClass, tableLockObj); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+roleTable+` (role text PRIMARY KEY, sealed bytea NOT NULL)`)
		return err
	})
}

// withCredentials puts user and password into a URL or key=value connection string.
func withCredentials(conn, user, password string) (string, error) {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err != nil {
			return "", errors.New("PostgreSQL connection string is not valid")
		}
		u.User = url.UserPassword(user, password)
		q := u.Query()
		q.Del("user")
		q.Del("password")
		u.RawQuery = q.Encode()
		return u.String(), nil
	}
	// key=value: later keys win, and neither value needs quoting (identifier and hex).
	return conn + " user=" + user + " password=" + password, nil
}

// backendConfig is init's -backend-config for the pg backend: with roles, terraform creates
// nothing, as its role may not.
func (r *Runner) pgBackendConfig(ws Workspace) []string {
	cfg := []string{"schema_name=" + SchemaName(ws)}
	if r.roleKeys != nil {
		cfg = append(cfg, "skip_schema_creation=true", "skip_table_creation=true", "skip_index_creation=true")
	}
	return cfg
}

// onlySkipFlagsChanged reports whether this working directory was initialised for the same pg
// schema without the skip flags WithPGRoles adds (a worker from before roles): init then
// reconfigures, since the state stays where it is.
func (r *Runner) onlySkipFlagsChanged(ws Workspace) bool {
	if r.roleKeys == nil {
		return false
	}
	data, err := os.ReadFile(filepath.Join(r.Dir(ws), dataDir, "terraform.tfstate"))
	if err != nil {
		return false
	}
	var st struct {
		Backend struct {
			Type   string         `json:"type"`
			Config map[string]any `json:"config"`
		} `json:"backend"`
	}
	if json.Unmarshal(data, &st) != nil || st.Backend.Type != backendPG {
		return false
	}
	return st.Backend.Config["schema_name"] == SchemaName(ws) && st.Backend.Config["skip_table_creation"] != true
}
