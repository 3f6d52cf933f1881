package gitea

import (
	"os"
	"testing"

	"github.com/slipway-dev/slipway/testsuite/giteaserver"
)

// Every test works on repositories of its own, so one Gitea serves them all.
func TestMain(m *testing.M) {
	code := m.Run()
	giteaserver.StopShared(code != 0)
	os.Exit(code)
}
