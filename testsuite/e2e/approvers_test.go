package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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

// forgeUsersPolicy writes a policy bundle: the shipped default policy with data mapping the
// accounts of the forge issuer to people (data.slipway.forge_users), as a platform configures it.
func forgeUsersPolicy(t *testing.T, issuer string, users map[string]string) string {
	t.Helper()
	// Keyed by the forge's kind (the issuer's part before ":"), and by the whole issuer for a
	// policy that tells two Giteas apart.
	kind, _, _ := strings.Cut(issuer, ":")
	dir := t.TempDir()
	rego, err := os.ReadFile(filepath.Join("..", "..", "internal", "policy", "default", "slipway.rego"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"), rego, 0o644))
	data, err := json.Marshal(map[string]any{"slipway": map[string]any{
		"groups": []string{"platform-admins", "tenant:*"}, "forge_users": map[string]any{kind: users, issuer: users}, "people": map[string]any{}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644))
	return dir
}
