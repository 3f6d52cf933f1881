package credentials

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lookupIn(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func TestParseAndResolveByStackAndTenant(t *testing.T) {
	dir := t.TempDir()
	dns := filepath.Join(dir, "dns.json")
	require.NoError(t, os.WriteFile(dns, []byte("{\n  \"key\": \"dns-secret-value\"\n}\n"), 0o600))
	env := map[string]string{"ACME_CLOUD": "acme-cloud-token", "ANY_CLOUD": "any-cloud-token"}
	m, err := Parse("/etc/creds.yaml", []byte(`
cloud:
  - {env: ACME_CLOUD, as: CLOUD_TOKEN, tenants: [acme], stacks: [web]}
  - {env: ANY_CLOUD, as: CLOUD_TOKEN, stacks: [web]}
dns: {file: `+dns+`, as: DNS_FILE, tenants: [acme]}
`), lookupIn(env), nil)
	require.NoError(t, err)

	vals, err := m.Resolve("acme", "web", []string{"cloud", "dns"}, lookupIn(env))
	require.NoError(t, err)
	require.Len(t, vals, 2)
	assert.Equal(t, Value{Name: "cloud", As: "CLOUD_TOKEN", Data: []byte("acme-cloud-token")}, vals[0])
	assert.Equal(t, "DNS_FILE", vals[1].As)
	assert.True(t, vals[1].File)

	// Another tenant of the same stack gets the fallback entry, and no dns at all.
	vals, err = m.Resolve("beta", "web", []string{"cloud"}, lookupIn(env))
	require.NoError(t, err)
	assert.Equal(t, "any-cloud-token", string(vals[0].Data))
	assert.False(t, m.Mapped("beta", "web", "dns"))
	_, err = m.Resolve("beta", "web", []string{"dns"}, lookupIn(env))
	var un *UnmappedError
	require.ErrorAs(t, err, &un)
	assert.Equal(t, "dns", un.Name)
	// Another stack gets nothing.
	assert.False(t, m.Mapped("acme", "db", "cloud"))

	secrets := Secrets([]Value{{Data: []byte("acme-cloud-token")}, {Data: []byte("{\n  \"key\": \"dns-secret-value\"\n}\n"), File: true}})
	assert.Equal(t, "token [redacted] and [redacted]", Redact(`token acme-cloud-token and "key": "dns-secret-value"`, secrets))
}

func TestParseRefusesTheWorkersOwnSources(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	require.NoError(t, os.MkdirAll(state, 0o700))
	inState := filepath.Join(state, "codec.keys")
	require.NoError(t, os.WriteFile(inState, []byte("k"), 0o600))
	keyFile := filepath.Join(dir, "attest.key")
	require.NoError(t, os.WriteFile(keyFile, []byte("k"), 0o600))
	link := filepath.Join(dir, "innocent.json")
	require.NoError(t, os.Symlink(keyFile, link))
	ok := filepath.Join(dir, "ok.json")
	require.NoError(t, os.WriteFile(ok, []byte("k"), 0o600))
	environ := []string{"SLIPWAY_STATE_DIR=" + state, "SLIPWAY_ATTEST_KEY_FILE=" + keyFile, "HOME=" + dir}
	env := map[string]string{"SLIPWAY_FORGE_TOKEN": "x", "PGPASSWORD": "x", "TEMPORAL_API_KEY": "x", "CLOUD": "x"}
	tests := []struct{ in, field, reason string }{
		{"c: {env: SLIPWAY_FORGE_TOKEN, as: T}", "c", `env: "SLIPWAY_FORGE_TOKEN" is one of slipway's own settings`},
		{"c: {env: PGPASSWORD, as: T}", "c", `env: "PGPASSWORD" is one of slipway's own settings`},
		{"c: {env: TEMPORAL_API_KEY, as: T}", "c", `env: "TEMPORAL_API_KEY" is one of slipway's own settings`},
		{"c: {file: " + inState + ", as: T}", "c", "is the worker's own (SLIPWAY_STATE_DIR names"},
		{"c: {file: " + link + ", as: T}", "c", "is the worker's own (SLIPWAY_ATTEST_KEY_FILE names"},
		{"c: {env: UNSET_HERE, as: T}", "c", `env: "UNSET_HERE" is not set in the worker's environment`},
		{"c: {env: CLOUD, as: PG_CONN_STR}", "c", `as: "PG_CONN_STR" is set by slipway itself`},
		{"c: {env: CLOUD, as: PATH}", "c", `as: "PATH" is set by slipway itself`},
		{"c: {env: CLOUD, as: TF_RUN_MARKER}", "c", `as: "TF_RUN_MARKER" is set by slipway itself`},
		{"c: {env: CLOUD, file: " + ok + ", as: T}", "c", "exactly one of env"},
		{"c: {file: " + ok + "}", "c", "as: is required with file"},
		{"c: {file: ok.json, as: T}", "c", "must be an absolute path"},
		{"c: {env: CLOUD, stack: [web]}", "c", `unknown field "stack"`},
		{"c: [{env: CLOUD, tenants: [Acme]}]", "c[0]", `tenants: "Acme" is not a tenant name`},
		{"Cloud: {env: CLOUD}", "Cloud", "is not a credential name"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse("/etc/creds.yaml", []byte(tc.in), lookupIn(env), environ)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.field, e.Field)
			assert.Contains(t, e.Reason, tc.reason)
			assert.Contains(t, err.Error(), "SLIPWAY_CREDENTIALS_FILE (/etc/creds.yaml): ")
		})
	}
	_, err := Parse("/etc/creds.yaml", []byte("c: {file: "+ok+", as: T}"), lookupIn(env), environ)
	require.NoError(t, err, "a file set aside for stacks is fine")
}
