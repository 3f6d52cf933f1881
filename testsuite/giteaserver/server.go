// Package giteaserver gives tests a real Gitea (testsuite/giteastack) that starts with the
// test and stops with it.
package giteaserver

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/testsuite/giteastack"
)

// EnvRequire="1" turns a missing gitea binary into a test failure instead of a skip (CI sets it).
const EnvRequire = "SLIPWAY_REQUIRE_GITEA"

// Server is a running Gitea with test-friendly helpers.
type Server struct {
	*giteastack.Server
}

// Start starts Gitea for t and stops it in t.Cleanup. A missing binary skips the test
// (naming `scripts/tools.sh gitea`) unless SLIPWAY_REQUIRE_GITEA=1.
func Start(t testing.TB) *Server {
	t.Helper()
	dir, err := os.MkdirTemp("", "slipway-gitea-")
	if err != nil {
		t.Fatalf("giteaserver: temp dir: %v", err)
	}
	begin := time.Now()
	s, err := giteastack.Start(context.Background(), giteastack.Options{Dir: dir, ToolsDir: localdirs.Tools()})
	var missing *giteastack.MissingToolError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvRequire) != "1":
		os.RemoveAll(dir)
		t.Skip(err.Error())
	case err != nil:
		t.Fatalf("giteaserver: %v (logs in %s)", err, dir)
	}
	t.Logf("giteaserver: started in %v at %s", time.Since(begin).Round(time.Millisecond), s.URL)
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("giteaserver: stop: %v", err)
		}
		if t.Failed() {
			t.Logf("giteaserver: gitea.log kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return &Server{Server: s}
}

// CreateRepo creates a repository with an initial commit on main and returns its clone URL.
func (s *Server) CreateRepo(t testing.TB, name string) string {
	t.Helper()
	url, err := s.Server.CreateRepo(context.Background(), name)
	if err != nil {
		t.Fatalf("giteaserver: %v", err)
	}
	return url
}
