// Package postgres starts Debian PostgreSQL 15 servers on loopback: throwaway ones for
// tests and programs, or one on a kept data directory that survives restarts (slipway dev).
package postgres

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/slipway-dev/slipway/internal/devstack/freeport"
)

const (
	// DefaultBinDir is where Debian's postgresql-15 package puts the server binaries.
	DefaultBinDir = "/usr/lib/postgresql/15/bin"
	// EnvBinDir overrides DefaultBinDir.
	EnvBinDir = "SLIPWAY_POSTGRES_BIN"

	// Superuser is the role initdb creates; it connects without a password on loopback.
	Superuser = "postgres"
	// readyTimeout and stopTimeout are safety nets against a wedged server, not pass/fail timing.
	readyTimeout = 60 * time.Second
	stopTimeout  = 30 * time.Second
	startTries   = 3
)

// Options configure Launch. The zero value is a throwaway server on a free port.
type Options struct {
	BinDir string // "" = $SLIPWAY_POSTGRES_BIN, else DefaultBinDir
	// DataDir is kept and reused when set (initdb runs only when it holds no cluster yet);
	// "" = a fresh directory that Close removes.
	DataDir string
	Port    int // 0 = a free loopback port
	// Passwords makes every role but the superuser log in with its password (scram-sha-256),
	// as a production server does; by default every role is trusted on loopback.
	Passwords bool
}

// Server is one running PostgreSQL. ConnString connects as the superuser to database postgres.
type Server struct {
	ConnString string
	Host       string
	Port       int
	DataDir    string
	BinDir     string
	LogPath    string

	cred    *syscall.Credential
	base    string // throwaway directory removed by Close; "" for a kept data dir
	kept    bool
	cmd     *exec.Cmd
	exited  chan struct{}
	once    sync.Once
	closeEr error
}

// passwordHBA trusts the superuser on loopback (the tests' and tools' own connection) and
// asks every other role for its password.
const passwordHBA = `local all all trust
host all ` + Superuser + ` 127.0.0.1/32 trust
host all ` + Superuser + ` ::1/128 trust
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
`

var dbNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Launch runs initdb (when needed) and postgres on 127.0.0.1. As root the server runs as
// the `postgres` OS user, because initdb and postgres refuse to run as root. The caller
// must Close the server; the kernel stops it if this process dies first.
func Launch(o Options) (_ *Server, err error) {
	bin := o.BinDir
	if bin == "" {
		bin = DefaultBinDir
		if env := os.Getenv(EnvBinDir); env != "" {
			bin = env
		}
	}
	for _, tool := range []string{"initdb", "postgres", "pg_isready", "createdb", "psql"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			return nil, &MissingError{Msg: fmt.Sprintf("postgres: %s not usable (%v); install Debian's postgresql-15 or set %s", tool, err, EnvBinDir)}
		}
	}
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("postgres: Options.Port = %d: must be 0 (a free port) or 1-65535", o.Port)
	}
	cred, err := serverCredential()
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Server{Host: "127.0.0.1", BinDir: bin, cred: cred}
	if o.DataDir == "" {
		if err := s.makeThrowawayDir(); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				os.RemoveAll(s.base)
			}
		}()
	} else if err := s.useKeptDir(o.DataDir); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(s.DataDir, "PG_VERSION")); err != nil {
		if out, err := s.command(s.workDir(), "initdb", "-D", s.DataDir, "-U", Superuser, "-A", "trust", "-E", "UTF8",
			"--no-sync", "--no-instructions").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("postgres: initdb: %w\n%s", err, out)
		}
		if o.Passwords {
			if err := os.WriteFile(filepath.Join(s.DataDir, "pg_hba.conf"), []byte(passwordHBA), 0o600); err != nil {
				return nil, fmt.Errorf("postgres: pg_hba.conf: %w", err)
			}
		}
	}
	// A free port can be taken between probing and binding; then try another.
	for try := 1; ; try++ {
		err := s.start(o.Port)
		if err == nil {
			break
		}
		if try == startTries || o.Port != 0 {
			return nil, fmt.Errorf("postgres: start: %w", err)
		}
	}
	s.ConnString = s.connString(Superuser)
	return s, nil
}

// makeThrowawayDir is a fresh base directory holding data, log and socket.
func (s *Server) makeThrowawayDir() error {
	// Not a test temp dir: its parents are 0700 and the postgres user could not traverse them.
	base, err := os.MkdirTemp("", "slipway-pg-")
	if err != nil {
		return fmt.Errorf("postgres: temp dir: %w", err)
	}
	if err := os.Chmod(base, 0o755); err != nil {
		os.RemoveAll(base)
		return fmt.Errorf("postgres: chmod %s: %w", base, err)
	}
	if s.cred != nil {
		if err := os.Chown(base, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			os.RemoveAll(base)
			return fmt.Errorf("postgres: chown %s: %w", base, err)
		}
	}
	s.base, s.DataDir, s.LogPath = base, filepath.Join(base, "data"), filepath.Join(base, "postgres.log")
	return nil
}

// workDir is where server-side commands run: a directory the server's OS user can enter.
func (s *Server) workDir() string {
	if s.kept {
		return s.DataDir
	}
	return s.base
}

// Close stops the server and removes a throwaway directory; later calls do nothing.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.closeEr = s.stopProcess()
		if s.base != "" {
			os.RemoveAll(s.base)
		}
	})
	return s.closeEr
}

// CreateDatabase creates database name and returns a connection string for it.
func (s *Server) CreateDatabase(name string) (string, error) {
	if !dbNameRE.MatchString(name) {
		return "", fmt.Errorf("postgres: CreateDB name %q: must be a lowercase identifier (letters, digits, '_')", name)
	}
	out, err := exec.Command(filepath.Join(s.BinDir, "createdb"), "-h", s.Host, "-p", strconv.Itoa(s.Port), "-U", Superuser, name).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("postgres: createdb %s: %w\n%s", name, err, out)
	}
	return s.connString(name), nil
}

// EnsureDatabase creates database name unless it exists, and returns its connection string.
func (s *Server) EnsureDatabase(name string) (string, error) {
	if !dbNameRE.MatchString(name) {
		return "", fmt.Errorf("postgres: EnsureDatabase name %q: must be a lowercase identifier (letters, digits, '_')", name)
	}
	found, err := s.Psql("postgres", "SELECT 1 FROM pg_database WHERE datname = '"+name+"'")
	if err != nil || found == "1" {
		return s.connString(name), err
	}
	return s.CreateDatabase(name)
}

// Psql runs sql in database db with psql and returns its unaligned, tuples-only output.
func (s *Server) Psql(db, sql string) (string, error) {
	cmd := exec.Command(filepath.Join(s.BinDir, "psql"), "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1",
		"-h", s.Host, "-p", strconv.Itoa(s.Port), "-U", Superuser, "-d", db, "-c", sql)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("postgres: psql %q on %s: %w\n%s", sql, db, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// Running reports whether the postmaster process is still alive.
// PID is the postmaster's process ID; its backends are its children.
func (s *Server) PID() int { return s.cmd.Process.Pid }

func (s *Server) Running() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// ConnStringFor connects as the superuser to database db.
func (s *Server) ConnStringFor(db string) string { return s.connString(db) }

func (s *Server) connString(db string) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", Superuser, s.Host, s.Port, db)
}

func (s *Server) start(port int) error {
	if port == 0 {
		p, err := freeport.Get()
		if err != nil {
			return err
		}
		port = p
	}
	logFile, err := os.OpenFile(s.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	// 200, not the default 100: two Temporal nodes' pools, terraform's backend and slipway's store
	// hold ~80 in a production-topology run, and a loaded host's spikes ran out of the rest.
	args := []string{"-D", s.DataDir, "-p", strconv.Itoa(port), "-h", s.Host, "-c", "max_connections=200"}
	if s.kept {
		// Loopback TCP only: a kept data dir's server needs no socket directory.
		args = append(args, "-c", "unix_socket_directories=")
	} else {
		// fsync off and friends: throwaway data, and speed matters more than durability here.
		args = append(args, "-k", s.base, "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off")
	}
	cmd := s.command(s.workDir(), "postgres", args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// SIGQUIT (immediate shutdown) if this process dies without cleaning up.
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
		if exec.Command(filepath.Join(s.BinDir, "pg_isready"), "-q", "-h", s.Host, "-p", strconv.Itoa(s.Port)).Run() == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("postgres exited during startup:\n%s", s.LogTail())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready after %v:\n%s", readyTimeout, s.LogTail())
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

// LogTail is the end of the server's log, for error messages.
func (s *Server) LogTail() string {
	data, _ := os.ReadFile(s.LogPath)
	if len(data) > 4096 {
		data = data[len(data)-4096:]
	}
	return string(data)
}

// command builds a server-side command that runs as the server's OS user.
func (s *Server) command(dir, tool string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.BinDir, tool), args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	return cmd
}
