// Package giteaserver gives tests a real Gitea (testsuite/giteastack) that starts with the
// test and stops with it, or one the whole test process shares.
package giteaserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
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
	s, dir := start(t)
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
	return s
}

// shared is the one Gitea of a test process that Shared hands out.
var shared struct {
	sync.Mutex
	s   *Server
	dir string
}

// Shared is one Gitea for every test of the process that asks, started by the first: a start
// costs seconds of CPU, and tests on their own repositories need no Gitea of their own. The
// package's TestMain calls StopShared.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.s == nil {
		shared.s, shared.dir = start(t)
	}
	return shared.s
}

// StopShared stops the Gitea Shared started, if any, keeping its directory when failed.
func StopShared(failed bool) {
	shared.Lock()
	defer shared.Unlock()
	if shared.s == nil {
		return
	}
	if err := shared.s.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "giteaserver: stop:", err)
	}
	if failed {
		fmt.Fprintln(os.Stderr, "giteaserver: gitea.log kept in", shared.dir)
	} else {
		os.RemoveAll(shared.dir)
	}
	shared.s = nil
}

// start starts a Gitea in a new directory, or skips or fails t.
func start(t testing.TB) (*Server, string) {
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
	return &Server{Server: s}, dir
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
