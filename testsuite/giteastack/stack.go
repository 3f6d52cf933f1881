// Package giteastack runs a real Gitea server on 127.0.0.1 with SQLite (a GitOps forge for
// the embedded default and for tests): one `gitea web` process, an admin user and its token.
package giteastack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/devstack/freeport"
)

const (
	// AdminUser owns every repository the server creates.
	AdminUser = "slipway"

	// startTimeout bounds a wedged start; it is a safety net, not a pass/fail timing.
	startTimeout = 2 * time.Minute
	pollEvery    = 100 * time.Millisecond
)

// tokenLine is the token `generate-access-token --raw` prints (after any warnings).
var tokenLine = regexp.MustCompile(`(?m)^([0-9a-f]{40})\s*$`)

// Options say where a server keeps its files and finds its binary.
type Options struct {
	Dir      string // app.ini, SQLite database, repositories, gitea.log; created if missing
	ToolsDir string // the tool cache scripts/tools.sh fills (gitea-*)
}

// Server is a running Gitea; Stop ends it.
type Server struct {
	URL       string // http://127.0.0.1:PORT (no trailing slash)
	AdminUser string // site admin and owner of CreateRepo's repositories
	Password  string // AdminUser's password (git over HTTP accepts Token too)
	Token     string // AdminUser's access token with all scopes
	Dir       string

	logPath string
	http    *http.Client
	proc    *process
}

// Start writes app.ini, migrates the database, creates the admin user and its token, starts
// `gitea web` and waits for /api/healthz. Missing tools give a *MissingToolError naming
// `scripts/tools.sh gitea`. On error the server is stopped.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.Dir == "" {
		return nil, &InvalidError{Field: "Options.Dir", Problem: "must not be empty"}
	}
	tl, err := findTools(o.ToolsDir)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("giteastack: dir: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("giteastack: dir: %w", err)
	}
	s := &Server{Dir: dir, AdminUser: AdminUser, logPath: filepath.Join(dir, "gitea.log"),
		http: &http.Client{Timeout: 30 * time.Second}}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := s.start(ctx, tl); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// Stop ends gitea; it is safe to call twice.
func (s *Server) Stop() error {
	if s.proc == nil {
		return nil // stopped already: a test may take the forge down before its cleanup does
	}
	err := s.proc.Stop()
	s.proc = nil
	return err
}

func (s *Server) start(ctx context.Context, tl tools) error {
	port, err := freeport.Get()
	if err != nil {
		return err
	}
	s.URL = fmt.Sprintf("http://127.0.0.1:%d", port)
	conf := filepath.Join(s.Dir, "app.ini")
	if err := os.WriteFile(conf, []byte(appINI(s.Dir, tl.static, port)), 0o600); err != nil {
		return fmt.Errorf("giteastack: app.ini: %w", err)
	}
	gitea := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, tl.gitea, append([]string{"--config", conf, "--work-path", s.Dir}, args...)...)
		cmd.Dir = s.Dir
		cmd.Env = append(os.Environ(), "GITEA_WORK_DIR="+s.Dir, "HOME="+s.Dir)
		return cmd
	}
	if _, err := run(ctx, "migrate", s.logPath, gitea(ctx, "migrate")); err != nil {
		return err
	}
	if s.Password, err = randomPassword(); err != nil {
		return err
	}
	if _, err := run(ctx, "admin user create", s.logPath, gitea(ctx, "admin", "user", "create", "--admin",
		"--username", AdminUser, "--password", s.Password, "--email", AdminUser+"@localhost",
		"--must-change-password=false")); err != nil {
		return err
	}
	out, err := run(ctx, "admin user generate-access-token", s.logPath, gitea(ctx, "admin", "user",
		"generate-access-token", "--username", AdminUser, "--token-name", "slipway", "--scopes", "all", "--raw"))
	if err != nil {
		return err
	}
	m := tokenLine.FindAllSubmatch(out, -1)
	if len(m) == 0 {
		return &ComponentError{Step: "admin user generate-access-token", Err: fmt.Errorf("no token in output"),
			LogPath: s.logPath, LogTail: tail(out)}
	}
	s.Token = string(m[len(m)-1][1])
	// Not CommandContext: the server outlives Start's ctx and ends only by Stop.
	if s.proc, err = spawn(gitea(context.Background(), "web"), s.logPath); err != nil {
		return &ComponentError{Step: "web", Err: err, LogPath: s.logPath, LogTail: logTail(s.logPath)}
	}
	return s.waitHealthy(ctx)
}

// waitHealthy polls /api/healthz until it says pass; it fails early when gitea exits.
func (s *Server) waitHealthy(ctx context.Context) error {
	var last error
	for {
		ok, err := s.healthy(ctx)
		if ok {
			return nil
		}
		last = err
		if exitErr := s.proc.Exited(); exitErr != nil {
			return &ComponentError{Step: "web", Err: fmt.Errorf("%w (last check: %v)", exitErr, last),
				LogPath: s.logPath, LogTail: logTail(s.logPath)}
		}
		select {
		case <-ctx.Done():
			return &ComponentError{Step: "web", Err: fmt.Errorf("%w (last check: %v)", ctx.Err(), last),
				LogPath: s.logPath, LogTail: logTail(s.logPath)}
		case <-time.After(pollEvery):
		}
	}
}

func (s *Server) healthy(ctx context.Context) (bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/healthz", nil)
	if err != nil {
		return false, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("GET /api/healthz: HTTP %d", resp.StatusCode)
	}
	return true, nil
}

func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("giteastack: password: %w", err)
	}
	// The prefix satisfies any complexity rule (letters, digits, a symbol).
	return "Sw1-" + strings.ToLower(hex.EncodeToString(b)), nil
}
