package temporalcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/slipway-dev/slipway/internal/devstack/proc"
)

// setupTimeout bounds one database's setup; applying every schema version takes ~1 s.
const setupTimeout = 2 * time.Minute

// Setup creates the persistence and visibility databases if missing and brings their
// schemas to this release with the sql tool. It is idempotent: an initialised database
// skips setup-schema, and update-schema applies only the versions it lacks.
func Setup(ctx context.Context, o Options) error {
	db, err := o.DB.resolve("Options")
	if err != nil {
		return err
	}
	bins, err := FindBinaries(o.BinDir)
	if err != nil {
		return err
	}
	for _, d := range []struct{ name, schema string }{{db.Database, "temporal"}, {db.VisibilityDatabase, "visibility"}} {
		if err := setupDatabase(ctx, db, bins, d.name, filepath.Join(bins.SchemaDir, "postgresql", "v12", d.schema, "versioned")); err != nil {
			return err
		}
	}
	return nil
}

func setupDatabase(ctx context.Context, db DB, bins Binaries, name, versioned string) error {
	ctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	if err := createDatabase(ctx, db, name); err != nil {
		return &SchemaError{Database: name, Step: "create database", Err: err}
	}
	initialised, err := hasSchemaVersion(ctx, db, name)
	if err != nil {
		return &SchemaError{Database: name, Step: "read schema version", Err: err}
	}
	if !initialised {
		if out, err := sqlTool(ctx, db, bins, name, "setup-schema", "-v", "0.0"); err != nil {
			return &SchemaError{Database: name, Step: "setup-schema", Err: err, Output: proc.Tail([]byte(out))}
		}
	}
	if out, err := sqlTool(ctx, db, bins, name, "update-schema", "-d", versioned); err != nil {
		return &SchemaError{Database: name, Step: "update-schema", Err: err, Output: proc.Tail([]byte(out))}
	}
	return nil
}

// connString reaches database name; the password travels in the URL, never on a command line.
func connString(db DB, name string) string {
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(db.Host, strconv.Itoa(db.Port)), Path: "/" + name,
		RawQuery: "sslmode=disable&connect_timeout=10"}
	if db.Password != "" {
		u.User = url.UserPassword(db.User, db.Password)
	} else {
		u.User = url.User(db.User)
	}
	return u.String()
}

func createDatabase(ctx context.Context, db DB, name string) error {
	conn, err := pgx.Connect(ctx, connString(db, "postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: a concurrent Setup won
		return nil
	}
	return err
}

// hasSchemaVersion reports whether setup-schema already ran on database name.
func hasSchemaVersion(ctx context.Context, db DB, name string) (bool, error) {
	conn, err := pgx.Connect(ctx, connString(db, name))
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	var table bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('schema_version') IS NOT NULL").Scan(&table); err != nil || !table {
		return false, err
	}
	var rows int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM schema_version WHERE db_name = $1", name).Scan(&rows)
	return rows > 0, err
}

// sqlTool runs temporal-sql-tool on database name and returns its output.
func sqlTool(ctx context.Context, db DB, bins Binaries, name string, args ...string) (string, error) {
	full := append([]string{"--plugin", "postgres12", "--ep", db.Host, "-p", strconv.Itoa(db.Port),
		"-u", db.User, "--db", name}, args...)
	cmd := exec.CommandContext(ctx, bins.SQLTool, full...)
	// SQL_PASSWORD, not --pw: a password on a command line shows in ps.
	cmd.Env = append(os.Environ(), "SQL_PASSWORD="+db.Password)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w", filepath.Base(bins.SQLTool), args[0], err)
	}
	return out.String(), nil
}
