package e2e

import (
	"os"
	"testing"

	"github.com/slipway-dev/slipway/internal/cli"
)

// as runs fn with the CLI signing as who (SLIPWAY_DEV_IDENTITY: "alice", or "carol:platform-admins"
// with groups): the dev key's holder acting as that person, as the tests' harness may.
func as(t *testing.T, who string, fn func()) {
	t.Helper()
	old, had := os.LookupEnv(cli.EnvDevIdentity)
	t.Setenv(cli.EnvDevIdentity, who) // fails a parallel test: the env is the process's
	defer func() {
		if had {
			os.Setenv(cli.EnvDevIdentity, old)
		} else {
			os.Unsetenv(cli.EnvDevIdentity)
		}
	}()
	fn()
}
