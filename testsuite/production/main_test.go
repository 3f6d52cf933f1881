// Package production runs slipway in the production topology and loses hosts under it: a
// real Temporal cluster of two server nodes on PostgreSQL, three slipway-worker processes
// with their own disks, terraform's pg backend, the shared plan and secret store, a real
// Gitea and a real ArgoCD. Workers are SIGKILLed (one comes back with an empty disk) and a
// Temporal node is killed while 20 lifecycles run; the figures must all be on target.
package production

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// workerBin is the real slipway-worker, built once for the package.
var workerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "slipway-production-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "production:", err)
		os.Exit(1)
	}
	workerBin = filepath.Join(dir, "slipway-worker")
	build := exec.Command("go", "build", "-o", workerBin, "github.com/slipway-dev/slipway/worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "production: build slipway-worker:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
