package workerapp

import (
	"context"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// SLIPWAY_TERRAFORM_SANDBOX: unset is bubblewrap; without a working one a worker refuses
// terraform steps (and says so, naming the setting), a dev stack runs it unconfined saying so,
// and only none-insecure runs it unconfined on a worker. Old and unknown values stop the worker.
func TestTerraformSandboxFromEnv(t *testing.T) {
	ctx := context.Background()
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	missing := []string{hooks.EnvBwrap, "/nonexistent/bwrap"}

	s, err := TerraformSandboxFromEnv(ctx, env(missing...), false)
	require.NoError(t, err, "a worker without bubblewrap starts")
	assert.False(t, s.Secure())
	assert.Empty(t, s.Mode, "and refuses terraform")
	assert.Contains(t, s.String(), "terraform steps are REFUSED")
	assert.Contains(t, s.String(), "SLIPWAY_TERRAFORM_SANDBOX=none-insecure")

	s, err = TerraformSandboxFromEnv(ctx, env(missing...), true)
	require.NoError(t, err)
	assert.Equal(t, terraform.SandboxNoneInsecure, s.Mode, "slipway dev falls back")
	assert.Contains(t, s.String(), "UNCONFINED")
	assert.Contains(t, s.String(), "bubblewrap does not work here")

	s, err = TerraformSandboxFromEnv(ctx, env(append(missing, terraform.EnvSandbox, "none-insecure")...), false)
	require.NoError(t, err)
	assert.Equal(t, terraform.SandboxNoneInsecure, s.Mode)
	assert.Contains(t, s.String(), "UNCONFINED")
	assert.Contains(t, s.String(), "SLIPWAY_TERRAFORM_SANDBOX=none-insecure")

	_, err = TerraformSandboxFromEnv(ctx, env(append(missing, terraform.EnvSandbox, "bwrap")...), true)
	require.ErrorContains(t, err, "SLIPWAY_TERRAFORM_SANDBOX=bwrap", "asked for and missing: the worker does not start")
	_, err = TerraformSandboxFromEnv(ctx, env(terraform.EnvSandbox, "none"), false)
	require.ErrorContains(t, err, `SLIPWAY_TERRAFORM_SANDBOX: "none" no longer runs terraform unconfined; say none-insecure`)
	_, err = TerraformSandboxFromEnv(ctx, env(terraform.EnvSandbox, "off"), false)
	require.ErrorContains(t, err, `SLIPWAY_TERRAFORM_SANDBOX: "off" is not a sandbox`)

	if exec.Command("bwrap", "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "true").Run() != nil {
		t.Skip("bubblewrap does not work here")
	}
	s, err = TerraformSandboxFromEnv(ctx, env(terraform.EnvSandboxBinds, "/a,/b"), false)
	require.NoError(t, err)
	assert.True(t, s.Secure(), "unset is bubblewrap when it works")
	assert.Equal(t, []string{"/a", "/b"}, s.Binds)
}
