package terraform

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/credentials"
)

// writeCreds is a root module whose provisioner writes what it got of the credentials to a file
// of outDir (so the test sees the real values), echoes them (so the output must be redacted),
// and then fails printing them to stderr when fail is set (so the error must be too).
func writeCreds(outDir, name string, fail bool) map[string][]byte {
	tail := ""
	if fail {
		tail = `; echo \"bad token $CLOUD_TOKEN\" >&2; exit 3`
	}
	return map[string][]byte{"main.tf": []byte(`
resource "terraform_data" "probe" {
  input = "x"
  provisioner "local-exec" {
    command = "echo \"cloud=$${CLOUD_TOKEN:-unset}\" > ` + outDir + `/` + name + `; cat \"$${DNS_FILE:-/dev/null}\" >> ` + outDir + `/` + name + `; echo \"token is $${CLOUD_TOKEN:-unset}\"` + tail + `"
  }
}
`)}
}

// A stack's credentials reach its own terraform (a variable's value; a file's private copy),
// never another stack's or another tenant's, and never its output or errors.
func TestCredentialsReachOnlyTheirStacksTerraform(t *testing.T) {
	dir := t.TempDir()
	dnsFile := filepath.Join(dir, "dns.json")
	require.NoError(t, os.WriteFile(dnsFile, []byte(`{"dns_key": "dnssecretvalue"}`+"\n"), 0o600))
	t.Setenv("STACKS_ACME_CLOUD", "acmecloudtokenvalue")
	m, err := credentials.Parse("creds.yaml", []byte(`
cloud: {env: STACKS_ACME_CLOUD, as: CLOUD_TOKEN, stacks: [web], tenants: [acme]}
dns: {file: `+dnsFile+`, as: DNS_FILE, stacks: [web]}
`), os.LookupEnv, os.Environ())
	require.NoError(t, err)
	log := &safeBuffer{}
	r := newRunner(t, WithCredentials(m), WithOutput(log))
	ctx := context.Background()
	outDir := t.TempDir()

	run := func(ws Workspace, fail bool) error {
		t.Helper()
		ready(t, r, ws, writeCreds(outDir, ws.Tenant+"-"+ws.Name, fail))
		p, err := r.Plan(ctx, ws, "probe", false)
		require.NoError(t, err)
		// The apply learns stack and credentials from what Prepare recorded, as on a worker that only applies.
		_, err = r.Apply(ctx, Workspace{Tenant: ws.Tenant, Name: ws.Name}, p)
		return err
	}
	require.NoError(t, run(Workspace{Tenant: "acme", Name: "web", Stack: "web", Credentials: []string{"cloud", "dns"}}, false))
	got, err := os.ReadFile(filepath.Join(outDir, "acme-web"))
	require.NoError(t, err)
	assert.Equal(t, "cloud=acmecloudtokenvalue\n{\"dns_key\": \"dnssecretvalue\"}\n", string(got), "stack web of acme gets both")

	// Stack db names no credential: it gets none, although the worker holds them.
	require.NoError(t, run(Workspace{Tenant: "acme", Name: "db", Stack: "db", Credentials: []string{}}, false))
	got, err = os.ReadFile(filepath.Join(outDir, "acme-db"))
	require.NoError(t, err)
	assert.Equal(t, "cloud=unset\n", string(got))

	// Stack db naming web's credential is refused before terraform runs: the mapping is for web.
	ws := Workspace{Tenant: "acme", Name: "db2", Stack: "db", Credentials: []string{"cloud"}}
	require.NoError(t, r.Prepare(ctx, ws, writeCreds(outDir, "acme-db2", false)))
	err = r.Init(ctx, ws)
	var bad *InvalidInputError
	require.ErrorAs(t, err, &bad)
	assert.Contains(t, bad.Reason, `credential "cloud" of stack db (tenant acme)`)
	// So is web of another tenant, for the tenant-scoped one.
	ws = Workspace{Tenant: "beta", Name: "web", Stack: "web", Credentials: []string{"cloud"}}
	require.NoError(t, r.Prepare(ctx, ws, writeCreds(outDir, "beta-web", false)))
	require.ErrorAs(t, r.Init(ctx, ws), &bad)
	assert.NoFileExists(t, filepath.Join(outDir, "beta-web"))

	// A failure that prints the token: the error and the log say [redacted].
	err = run(Workspace{Tenant: "acme", Name: "web2", Stack: "web", Credentials: []string{"cloud"}}, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad token [redacted]")
	assert.NotContains(t, err.Error(), "acmecloudtokenvalue")
	assert.Contains(t, log.String(), "token is [redacted]")
	assert.NotContains(t, log.String(), "acmecloudtokenvalue")
	assert.NotContains(t, log.String(), "dnssecretvalue")

	// The file's copy lives in the instance's own HOME, private to the worker's user.
	fi, err := os.Stat(filepath.Join(r.homeDir(Workspace{Tenant: "acme", Name: "web"}), credentialsDir, "dns"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	// A stack that stops naming a credential leaves no copy behind.
	web := Workspace{Tenant: "acme", Name: "web", Stack: "web", Credentials: []string{}}
	require.NoError(t, r.Prepare(ctx, web, writeCreds(outDir, "acme-web", false)))
	_, err = r.Outputs(ctx, web)
	require.NoError(t, err)
	assert.NoDirExists(t, filepath.Join(r.homeDir(web), credentialsDir))
}

// TestCredentialsDirectoryIsNeverFollowedOutOfHome: an apply's local-exec replaces its HOME's
// credentials directory with a symlink to another instance's working directory. The commands
// after it remove the link; the other directory keeps its files. Before, the next command's
// clean-up of credentials no longer named deleted every file in the directory the link named.
func TestCredentialsDirectoryIsNeverFollowedOutOfHome(t *testing.T) {
	bin := requireBwrap(t)
	t.Setenv("STACKS_ACME_CLOUD", "acmecloudtokenvalue")
	m, err := credentials.Parse("creds.yaml", []byte("cloud: {env: STACKS_ACME_CLOUD, as: CLOUD_TOKEN, stacks: [web]}\n"), os.LookupEnv, os.Environ())
	require.NoError(t, err)
	r := newRunner(t, WithSandbox(bin), WithCredentials(m))
	ctx := context.Background()
	victim := filepath.Join(t.TempDir(), "work", "beta", "db")
	require.NoError(t, os.MkdirAll(victim, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(victim, "main.tf"), []byte("# beta's\n"), 0o600))
	ws := Workspace{Tenant: "acme", Name: "web", Stack: "web", Credentials: []string{"cloud"}}
	ready(t, r, ws, map[string][]byte{"main.tf": []byte(`
resource "terraform_data" "link" {
  input = "x"
  provisioner "local-exec" {
    command = "rm -rf \"$HOME/` + credentialsDir + `\" && ln -s ` + victim + ` \"$HOME/` + credentialsDir + `\" && echo LINKED"
  }
}
`)})
	p, err := r.Plan(ctx, ws, "link", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)
	_, err = r.Plan(ctx, ws, "after", false)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(victim, "main.tf"), "beta's working directory keeps its files")
	fi, err := os.Lstat(filepath.Join(r.homeDir(ws), credentialsDir))
	if err == nil {
		assert.True(t, fi.IsDir(), "the link is gone")
	}
}
