package terraform

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/stackenv"
)

// printEnv is a root module whose local-exec provisioner prints its whole environment, as a
// hostile configuration would to exfiltrate the worker's credentials.
var printEnv = map[string][]byte{"main.tf": []byte(`
resource "terraform_data" "leak" {
  input = "x"
  provisioner "local-exec" {
    command = "echo BEGIN-ENV; env; cat /proc/$PPID/environ | tr '\\0' '\\n' | sed 's/^/PARENT /'; echo END-ENV"
  }
}
`)}

// TestLocalExecSeesOnlyItsEnvironment runs a real terraform whose provisioner prints its
// environment: none of the worker's secrets appear, and an allow-listed variable appears for
// its own stack only.
func TestLocalExecSeesOnlyItsEnvironment(t *testing.T) {
	secrets := map[string]string{
		"SLIPWAY_CODEC_KEY":    "k1:codecsecretvalue",
		"SLIPWAY_ARGOCD_TOKEN": "argotokenvalue",
		"PG_CONN_STR":          "postgres://admin:pgpasswordvalue@127.0.0.1/x",
		"SLIPWAY_TF_PG_CONN":   "postgres://admin:pgpasswordvalue@127.0.0.1/y",
		"PGPASSWORD":           "pgpasswordvalue",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("CLOUD_TOKEN", "cloudtokenvalue")
	t.Setenv("HTTPS_PROXY", "http://proxy.internal:3128")
	allow, err := stackenv.Parse("web=CLOUD_TOKEN;*=HTTPS_PROXY")
	require.NoError(t, err)
	out := &safeBuffer{}
	r := newRunner(t, WithStackEnv(allow, nil), WithOutput(out))
	ctx := context.Background()

	run := func(ws Workspace) string {
		t.Helper()
		start := len(out.String())
		ready(t, r, ws, printEnv)
		p, err := r.Plan(ctx, ws, "leak", false)
		require.NoError(t, err)
		// The apply learns its stack from what Prepare recorded, as on a worker that only applies.
		applyWS := ws
		applyWS.Stack = ""
		_, err = r.Apply(ctx, applyWS, p)
		require.NoError(t, err)
		got := out.String()[start:]
		require.Contains(t, got, "END-ENV", "the provisioner ran and printed")
		return got
	}
	web := run(Workspace{Tenant: "acme", Name: "web", Stack: "web"})
	other := run(Workspace{Tenant: "acme", Name: "db", Stack: "db"})
	for _, got := range []string{web, other} {
		for k, v := range secrets {
			assert.NotContains(t, got, v, "%s leaked to terraform", k)
		}
		assert.NotContains(t, got, "SLIPWAY_", "no slipway variable reaches terraform")
		assert.Contains(t, got, "HTTPS_PROXY=http://proxy.internal:3128", "* entries reach every stack")
	}
	assert.Contains(t, web, "CLOUD_TOKEN=cloudtokenvalue", "the web stack's allowed variable reaches it")
	assert.NotContains(t, other, "cloudtokenvalue", "another stack's variable does not")
	assert.True(t, strings.Contains(web, "HOME="+r.homeDir(Workspace{Tenant: "acme", Name: "web"})), "HOME is the instance's own")
}
