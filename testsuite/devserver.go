// Package testsuite holds slipway's test harnesses: a real Temporal dev server
// per test binary, a per-test embedded default (GitOps repo, terraform state,
// worker) on its own task queue, git helpers, and recorded histories for replay.
package testsuite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
)

// server is the dev server shared by the tests of one package (see Main).
var server *devenv.Server

// Main starts one real Temporal dev server (fast settings, free loopback ports)
// for the package's tests and stops it afterwards. Use it from TestMain.
func Main(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logDir, err := os.MkdirTemp("", "slipway-devserver-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsuite:", err)
		return 1
	}
	defer os.RemoveAll(logDir)
	if err := shareCodecKey(); err != nil {
		fmt.Fprintln(os.Stderr, "testsuite:", err)
		return 1
	}
	if err := shareAttestKey(); err != nil {
		fmt.Fprintln(os.Stderr, "testsuite:", err)
		return 1
	}
	server, err = devenv.StartServer(ctx, devenv.ServerOptions{
		Headless: true, SearchAttributes: contract.SearchAttributeTypes,
		LogFile: filepath.Join(logDir, "temporal.log"),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsuite: start Temporal dev server:", err)
		return 1
	}
	code := m.Run()
	writeDurations()
	if err := server.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "testsuite: stop dev server:", err)
	}
	return code
}

// Address is the shared dev server's frontend; tests must run under Main.
func Address(t testing.TB) string {
	t.Helper()
	if server == nil {
		t.Fatal("testsuite: no dev server: call testsuite.Main from TestMain")
	}
	timeTest(t)
	return server.Address
}

// shareCodecKey gives the test process one payload key (unless one is set), so
// the in-process CLI, every env's worker and the leak checks all use it.
func shareCodecKey() error {
	if os.Getenv(codec.EnvKey) != "" || os.Getenv(codec.EnvKeyFile) != "" {
		return nil
	}
	line, err := codec.Generate("test")
	if err != nil {
		return err
	}
	return os.Setenv(codec.EnvKey, line)
}

// shareAttestKey gives the test process one attestation key (unless one is set), so every
// env's worker, the in-process CLI and the subprocesses tests start sign and verify alike.
func shareAttestKey() error {
	if os.Getenv(attest.EnvKey) != "" || os.Getenv(attest.EnvKeyFile) != "" {
		return nil
	}
	if os.Getenv(RecordEnv) == "1" {
		return os.Setenv(attest.EnvKey, HistoryAttestKey)
	}
	key, err := attest.Generate()
	if err != nil {
		return err
	}
	return os.Setenv(attest.EnvKey, key)
}
