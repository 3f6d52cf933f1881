// Package postgres starts throwaway Debian PostgreSQL 15 servers on loopback for tests: a
// test-facing wrapper around internal/devstack/postgres, which programs use directly.
package postgres

import (
	"errors"
	"os"
	"testing"

	ipg "github.com/slipway-dev/slipway/internal/devstack/postgres"
)

const (
	// DefaultBinDir is where Debian's postgresql-15 package puts the server binaries.
	DefaultBinDir = ipg.DefaultBinDir
	// EnvBinDir overrides DefaultBinDir.
	EnvBinDir = ipg.EnvBinDir
	// EnvRequire="1" turns a missing PostgreSQL into a test failure instead of a skip (CI sets it).
	EnvRequire = "SLIPWAY_REQUIRE_POSTGRES"
)

// Server is one running PostgreSQL. ConnString connects as the superuser to database postgres.
type Server struct {
	*ipg.Server
}

// MissingError says a PostgreSQL binary is not installed.
type MissingError = ipg.MissingError

// Start runs initdb and postgres in a fresh directory on 127.0.0.1 and a free port, and stops
// the server in t.Cleanup. As root the server runs as the `postgres` OS user, because initdb
// and postgres refuse to run as root. Missing binaries skip the test unless EnvRequire=1.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Launch()
	var missing *MissingError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvRequire) != "1":
		t.Skip(err.Error())
	case err != nil:
		t.Fatal(err.Error())
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("postgres: %v", err)
		}
	})
	return s
}

// StartWithPasswords is Start with password authentication for every role but the superuser.
func StartWithPasswords(t testing.TB) *Server {
	t.Helper()
	s, err := ipg.Launch(ipg.Options{Passwords: true})
	var missing *MissingError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvRequire) != "1":
		t.Skip(err.Error())
	case err != nil:
		t.Fatal(err.Error())
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("postgres: %v", err)
		}
	})
	return &Server{s}
}

// Launch is Start for programs (the chaos command): the caller must Close the server.
func Launch() (*Server, error) {
	s, err := ipg.Launch(ipg.Options{})
	if err != nil {
		return nil, err
	}
	return &Server{s}, nil
}

// CreateDB creates database name and returns a connection string for it.
func (s *Server) CreateDB(t testing.TB, name string) string {
	t.Helper()
	conn, err := s.CreateDatabase(name)
	if err != nil {
		t.Fatal(err.Error())
	}
	return conn
}

// Query runs sql in database db with psql and returns its unaligned, tuples-only output.
func (s *Server) Query(t testing.TB, db, sql string) string {
	t.Helper()
	out, err := s.Psql(db, sql)
	if err != nil {
		t.Fatal(err.Error())
	}
	return out
}

// Stop shuts the server down (fast shutdown: SIGINT) and waits for it; later calls do nothing.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Errorf("postgres: stop: %v", err)
	}
}
