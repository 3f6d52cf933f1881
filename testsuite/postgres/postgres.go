// Package postgres starts throwaway Debian PostgreSQL 15 servers on loopback for tests.
package postgres

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// DefaultBinDir is where Debian's postgresql-15 package puts the server binaries.
	DefaultBinDir = "/usr/lib/postgresql/15/bin"
	// EnvBinDir overrides DefaultBinDir.
	EnvBinDir = "SLIPWAY_POSTGRES_BIN"
	// EnvRequire="1" turns a missing PostgreSQL into a test failure instead of a skip (CI sets it).
	EnvRequire = "SLIPWAY_REQUIRE_POSTGRES"

	superuser = "postgres"
	// readyTimeout and stopTimeout are safety nets against a wedged server, not pass/fail timing.
	readyTimeout = 60 * time.Second
	stopTimeout  = 30 * time.Second
	startTries   = 3
)

// Server is one running PostgreSQL. ConnString connects as the superuser to database postgres.
type Server struct {
	ConnString string
	Host       string
	Port       int
	DataDir    string

	bin     string
	cred    *syscall.Credential
	logPath string
	base    string
	cmd     *exec.Cmd
	exited  chan struct{}
	once    sync.Once
}

var dbNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

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

// MissingError says a PostgreSQL binary is not installed.
type MissingError struct{ Msg string }

func (e *MissingError) Error() string { return e.Msg }

// Launch is Start for programs (the chaos command): the caller must Close the server.
func Launch() (_ *Server, err error) {
	bin := DefaultBinDir
	if env := os.Getenv(EnvBinDir); env != "" {
		bin = env
	}
	for _, tool := range []string{"initdb", "postgres", "pg_isready", "createdb", "psql"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			return nil, &MissingError{Msg: fmt.Sprintf("postgres: %s not usable (%v); install Debian's postgresql-15 or set %s", tool, err, EnvBinDir)}
		}
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// Not a test temp dir: its parents are 0700 and the postgres user could not traverse them.
	base, err := os.MkdirTemp("", "slipway-pg-")
	if err != nil {
		return nil, fmt.Errorf("postgres: temp dir: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(base)
		}
	}()
	if err := os.Chmod(base, 0o755); err != nil {
		return nil, fmt.Errorf("postgres: chmod %s: %w", base, err)
	}
	if cred != nil {
		if err := os.Chown(base, int(cred.Uid), int(cred.Gid)); err != nil {
			return nil, fmt.Errorf("postgres: chown %s: %w", base, err)
		}
	}
	s := &Server{Host: "127.0.0.1", DataDir: filepath.Join(base, "data"), bin: bin, cred: cred,
		logPath: filepath.Join(base, "postgres.log"), base: base}
	if out, err := s.command(base, "initdb", "-D", s.DataDir, "-U", superuser, "-A", "trust", "-E", "UTF8",
		"--no-sync", "--no-instructions").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("postgres: initdb: %w\n%s", err, out)
	}
	// A free port can be taken between probing and binding; then try another.
	for try := 1; ; try++ {
		err := s.start(base)
		if err == nil {
			break
		}
		if try == startTries {
			return nil, fmt.Errorf("postgres: start: %w", err)
		}
	}
	s.ConnString = s.connString(superuser)
	return s, nil
}

// Close stops the server and removes its directory; later calls do nothing.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		err = s.stopProcess()
		os.RemoveAll(s.base)
	})
	return err
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

// CreateDatabase is CreateDB for programs.
func (s *Server) CreateDatabase(name string) (string, error) {
	if !dbNameRE.MatchString(name) {
		return "", fmt.Errorf("postgres: CreateDB name %q: must be a lowercase identifier (letters, digits, '_')", name)
	}
	out, err := exec.Command(filepath.Join(s.bin, "createdb"), "-h", s.Host, "-p", strconv.Itoa(s.Port), "-U", superuser, name).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("postgres: createdb %s: %w\n%s", name, err, out)
	}
	return s.connString(name), nil
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

// Psql is Query for programs.
func (s *Server) Psql(db, sql string) (string, error) {
	cmd := exec.Command(filepath.Join(s.bin, "psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1",
		"-h", s.Host, "-p", strconv.Itoa(s.Port), "-U", superuser, "-d", db, "-c", sql)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("postgres: psql %q on %s: %w\n%s", sql, db, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// Stop shuts the server down (fast shutdown: SIGINT) and waits for it; later calls do nothing.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Errorf("postgres: stop: %v", err)
	}
}

// Running reports whether the postmaster process is still alive.
func (s *Server) Running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

func (s *Server) connString(db string) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", superuser, s.Host, s.Port, db)
}

func (s *Server) start(base string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	logFile, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// fsync off and friends: throwaway data, and speed matters more than durability here.
	cmd := s.command(base, "postgres", "-D", s.DataDir, "-p", strconv.Itoa(port), "-h", s.Host, "-k", base,
		"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// SIGQUIT (immediate shutdown) if the test binary dies without cleaning up.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.Port, s.exited = cmd, port, make(chan struct{})
	go func() {
		cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(); err != nil {
		s.stopProcess()
		return err
	}
	return nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(readyTimeout)
	for {
		if exec.Command(filepath.Join(s.bin, "pg_isready"), "-q", "-h", s.Host, "-p", strconv.Itoa(s.Port)).Run() == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("postgres exited during startup:\n%s", s.logTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after %v:\n%s", readyTimeout, s.logTail())
		}
	}
}

// stopProcess asks for a fast shutdown, then an immediate one, then kills.
func (s *Server) stopProcess() error {
	if s.cmd == nil || s.cmd.Process == nil {
		return nil
	}
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGKILL} {
		if err := s.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("signal %v: %w", sig, err)
		}
		select {
		case <-s.exited:
			return nil
		case <-time.After(stopTimeout):
		}
	}
	return fmt.Errorf("postgres (pid %d) did not exit", s.cmd.Process.Pid)
}

func (s *Server) logTail() string {
	data, _ := os.ReadFile(s.logPath)
	if len(data) > 4096 {
		data = data[len(data)-4096:]
	}
	return string(data)
}

// command builds a server-side command that runs as the server's OS user.
func (s *Server) command(dir, tool string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, tool), args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}

// serverCredential is nil when not root; as root it is the postgres user's ids.
func serverCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(superuser)
	if err != nil {
		return nil, fmt.Errorf("running as root needs the %q OS user: %w", superuser, err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
