package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/hooks"
	"github.com/slipway-dev/slipway/internal/terraform"
	"github.com/slipway-dev/slipway/testsuite"
)

// credsStack's terraform writes what it got of CLOUD_TOKEN and DNS_FILE to outDir/<name> and
// echoes the token; its drain hook prints the token and the file, and their sha256 sums (which
// show the values arrived while the values themselves must come out redacted).
func credsStack(name, outDir, credentials string) map[string][]byte {
	dir := "stacks/" + name + "/"
	return map[string][]byte{
		dir + "schema.yaml": []byte(brokenSchema + credentials + `hooks:
  drain: {exec: hooks/drain.sh, deadline: 1m}
`),
		dir + "terraform/main.tf.tmpl": []byte(`resource "terraform_data" "probe" {
  input = {{ quote .Params.greeting }}
  provisioner "local-exec" {
    command = <<-EOT
      echo "cloud=$${CLOUD_TOKEN:-unset}" > ` + outDir + `/{{ .Name }}
      cat "$${DNS_FILE:-/dev/null}" >> ` + outDir + `/{{ .Name }}
      echo "token is $${CLOUD_TOKEN:-unset}"
    EOT
  }
}
`),
		dir + "manifests/app.yaml.tmpl": []byte(brokenManifest),
		dir + "hooks/drain.sh": []byte(`#!/bin/sh
echo "token: ${CLOUD_TOKEN:-unset}"
echo "token-sum: $(printf %s "${CLOUD_TOKEN:-unset}" | sha256sum | cut -c1-64)"
echo "dns: $(cat "${DNS_FILE:-/dev/null}")"
echo "dns-sum: $(cat "${DNS_FILE:-/dev/null}" | sha256sum | cut -c1-64)"
echo 0
`),
	}
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// Credentials end to end on a real worker, terraform and a bubblewrap-confined hook: stack
// credsa's credential (a variable set aside for stacks) and its tenant's file credential reach
// its terraform and its drain hook; credsb's, on the same worker, get neither; the values are in
// no history, status, GitOps commit or worker log, the hook's output says [redacted]; a
// credential no source maps for the stack and tenant is refused at create with exit 2 naming
// schema.credentials[i], before anything changes.
func TestCredentialsReachOnlyTheirStack(t *testing.T) {
	sandbox := "bwrap"
	if _, err := hooks.SandboxFromEnv(t.Context(), func(k string) string {
		if k == hooks.EnvSandbox {
			return hooks.SandboxBwrap
		}
		return os.Getenv(k)
	}); err != nil {
		if os.Getenv("SLIPWAY_REQUIRE_BWRAP") == "1" {
			t.Fatal(err)
		}
		sandbox = "none"
	}
	t.Setenv("SLIPWAY_HOOK_SANDBOX", sandbox)
	stamp := fmt.Sprint(time.Now().UnixNano())
	cloudToken, dnsSecret := "cloudtoken-e2e-"+stamp, "dnssecret-e2e-"+stamp
	dnsJSON := `{"dns_key": "` + dnsSecret + `"}` + "\n"
	dir := t.TempDir()
	dnsFile := filepath.Join(dir, "dns.json")
	require.NoError(t, os.WriteFile(dnsFile, []byte(dnsJSON), 0o600))
	mapping := filepath.Join(dir, "credentials.yaml")
	require.NoError(t, os.WriteFile(mapping, []byte(`cloud: {env: STACKS_CLOUD_A, as: CLOUD_TOKEN, stacks: [credsa]}
dns: {file: `+dnsFile+`, as: DNS_FILE, stacks: [credsa], tenants: [acme]}
`), 0o600))
	t.Setenv("STACKS_CLOUD_A", cloudToken)
	t.Setenv("SLIPWAY_CREDENTIALS_FILE", mapping)
	out := t.TempDir()
	t.Setenv(terraform.EnvSandboxBinds, out)
	e := testsuite.NewEnv(t)
	files := credsStack("credsa", out, "credentials: [cloud, dns]\n")
	for p, b := range credsStack("credsb", out, "") {
		files[p] = b
	}
	for p, b := range credsStack("credsc", out, "credentials: [cloud, nowhere]\n") {
		files[p] = b
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "stacks with and without credentials", files)
	inst := writeFile(t, "stack: credsa\nparameters:\n  greeting: hello\n")

	e.MustCLI(0, "create", "acme/a", "-f", inst, "--wait")
	e.MustCLI(0, "deploy", "acme/a", "--wait")
	e.MustCLI(0, "create", "acme/b", "-f", writeFile(t, "stack: credsb\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "acme/b", "--wait")
	require.Equal(t, "cloud="+cloudToken+"\n"+dnsJSON, readOut(t, out, "a"), "credsa's terraform got both")
	require.Equal(t, "cloud=unset\n", readOut(t, out, "b"), "credsb's terraform, on the same worker, got neither")

	e.MustCLI(0, "destroy", "acme/a", "--wait")
	e.MustCLI(0, "destroy", "acme/b", "--wait")
	hookA := step(t, e.Status("acme/a"), contract.DrainHook).Output
	require.Contains(t, hookA, "token: [redacted]\n")
	require.Contains(t, hookA, "token-sum: "+sum(cloudToken), "the hook got the token")
	require.Contains(t, hookA, "dns: [redacted]\n")
	require.Contains(t, hookA, "dns-sum: "+sum(dnsJSON), "the hook got the file")
	hookB := step(t, e.Status("acme/b"), contract.DrainHook).Output
	require.Contains(t, hookB, "token: unset\n")
	require.Contains(t, hookB, "dns-sum: "+sum(""), "credsb's hook got no file")

	// Unmapped: dns is acme's only, and nothing maps "nowhere". Refused before anything changes.
	r := e.CLI("create", "beta/a", "-f", inst, "--wait")
	require.Equal(t, 2, r.Code, "stdout %s stderr %s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, "schema.credentials[1]")
	require.Contains(t, r.Stderr, `credential "dns" is mapped to no source for stack credsa and tenant beta`)
	r = e.CLI("create", "acme/c", "-f", writeFile(t, "stack: credsc\nparameters:\n  greeting: hello\n"), "--wait")
	require.Equal(t, 2, r.Code, "stdout %s stderr %s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, `schema.credentials[0]: credential "cloud" is mapped to no source for stack credsc`, "cloud is credsa's only")
	require.Contains(t, r.Stderr, `schema.credentials[1]: credential "nowhere"`)
	require.Empty(t, testsuite.Branches(t, e.GitOpsRepo, "slipway/beta/a/"), "nothing changed")

	status := e.MustCLI(0, "status", "acme/a", "-o", "json", "--detail", "all").Stdout
	require.NotContains(t, status, cloudToken)
	require.NotContains(t, status, dnsSecret)
	require.Empty(t, e.SecretLeaks(t, []string{cloudToken, dnsSecret}), "no history, commit or log holds a credential")
}

// A mapping whose source is the worker's own stops the real worker at start, naming the entry:
// one of its variables (its forge token, libpq's password), or a file one of them names (a key
// inside its state dir, by a symlink that hides it). A mapping with sources set aside starts.
func TestCredentialsFromTheWorkersOwnSourcesStopTheWorker(t *testing.T) {
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NoWorker = true })
	bin := buildWorker(t)
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	require.NoError(t, os.MkdirAll(state, 0o700))
	key := filepath.Join(state, "codec.keys")
	require.NoError(t, os.WriteFile(key, []byte("k1:secret\n"), 0o600))
	innocent := filepath.Join(dir, "cloud.json")
	require.NoError(t, os.Symlink(key, innocent))
	aside := filepath.Join(dir, "aside.json")
	require.NoError(t, os.WriteFile(aside, []byte("{}"), 0o600))
	run := func(mapping string) (string, error) {
		path := filepath.Join(t.TempDir(), "credentials.yaml")
		require.NoError(t, os.WriteFile(path, []byte(mapping), 0o600))
		// A worker that wrongly started would run until the deadline: the test then fails, not hangs.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = append(os.Environ(), "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_TASK_QUEUE="+e.TaskQueue+"-creds",
			"SLIPWAY_GITOPS_REPO="+e.GitOpsRepo, "SLIPWAY_STATE_DIR="+state, "SLIPWAY_DEPLOYER=none",
			"SLIPWAY_FORGE_TOKEN=forgetoken", "PGPASSWORD=pgpassword", "SLIPWAY_CREDENTIALS_FILE="+path)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for mapping, want := range map[string]string{
		"cloud: {env: SLIPWAY_FORGE_TOKEN, as: CLOUD_TOKEN}": `cloud: env: "SLIPWAY_FORGE_TOKEN" is one of slipway's own settings`,
		"db: {env: PGPASSWORD, as: DB_PASSWORD}":             `db: env: "PGPASSWORD" is one of slipway's own settings`,
		"cloud: {file: " + innocent + ", as: CLOUD_FILE}":    `is the worker's own (SLIPWAY_STATE_DIR names`,
		"cloud: {file: " + aside + ", as: PG_CONN_STR}":      `as: "PG_CONN_STR" is set by slipway itself`,
	} {
		out, err := run(mapping)
		require.Error(t, err, "the worker must not start with %s: %s", mapping, out)
		require.Contains(t, out, "SLIPWAY_CREDENTIALS_FILE", mapping)
		require.Contains(t, out, want, mapping)
	}
}

// With terraform in bubblewrap (SLIPWAY_TERRAFORM_SANDBOX=bwrap), a stack that names no
// credential and goes looking for another stack's finds nothing: not the private copy in the
// other instance's HOME, not the operator's source file, not the worker's environment (where
// the variable sources live). The stack that names them still gets them inside the sandbox.
// The thief's provisioner fails on purpose so what it saw comes back in the step's error,
// unredacted: it holds no credential of its own.
func TestSandboxedTerraformCannotReachAnotherStacksCredentials(t *testing.T) {
	requireWorkingBwrap(t)
	stamp := fmt.Sprint(time.Now().UnixNano())
	cloudToken, dnsSecret := "cloudtoken-sbx-"+stamp, "dnssecret-sbx-"+stamp
	dir := t.TempDir()
	dnsFile := filepath.Join(dir, "dns.json")
	require.NoError(t, os.WriteFile(dnsFile, []byte(`{"dns_key": "`+dnsSecret+`"}`+"\n"), 0o600))
	mapping := filepath.Join(dir, "credentials.yaml")
	require.NoError(t, os.WriteFile(mapping, []byte(`cloud: {env: STACKS_CLOUD_A, as: CLOUD_TOKEN, stacks: [credsa]}
dns: {file: `+dnsFile+`, as: DNS_FILE, stacks: [credsa]}
`), 0o600))
	out := t.TempDir()
	t.Setenv("STACKS_CLOUD_A", cloudToken)
	t.Setenv("SLIPWAY_CREDENTIALS_FILE", mapping)
	t.Setenv(terraform.EnvSandbox, "bwrap")
	t.Setenv(terraform.EnvSandboxBinds, out)
	t.Setenv("SLIPWAY_HOOK_SANDBOX", "bwrap")
	e := testsuite.NewEnv(t)
	files := credsStack("credsa", out, "credentials: [cloud, dns]\n")
	aHome := filepath.Join(e.StateDir, "home", "acme", "a")
	files["stacks/thief/schema.yaml"] = []byte(brokenSchema)
	files["stacks/thief/manifests/app.yaml.tmpl"] = []byte(brokenManifest)
	files["stacks/thief/terraform/main.tf.tmpl"] = []byte(fmt.Sprintf(`resource "terraform_data" "probe" {
  input = "x"
  provisioner "local-exec" {
    command = <<-EOT
      echo "copy: $(cat %s/.slipway-credentials/dns 2>&1)" >&2
      echo "source: $(cat %s 2>&1)" >&2
      echo "worker-environ: $(tr -c '[:print:]' ' ' < /proc/%d/environ 2>&1)" >&2
      echo "own-env: $(env | tr '\n' ' ')" >&2
      exit 3
    EOT
  }
}
`, aHome, dnsFile, os.Getpid()))
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack with credentials and one that looks for them", files)

	e.MustCLI(0, "create", "acme/a", "-f", writeFile(t, "stack: credsa\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "acme/a", "--wait")
	require.Equal(t, "cloud="+cloudToken+"\n"+`{"dns_key": "`+dnsSecret+`"}`+"\n", readOut(t, out, "a"), "credsa's sandboxed terraform got both")
	require.FileExists(t, filepath.Join(aHome, ".slipway-credentials", "dns"), "the copy the thief looks for is there")

	e.MustCLI(0, "create", "acme/thief", "-f", writeFile(t, "stack: thief\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(1, "deploy", "acme/thief", "--wait")
	st := e.Status("acme/thief")
	require.NotNil(t, st.Failure)
	saw := strings.Join(strings.Fields(st.Failure.Error), " ")
	t.Log(saw)
	require.Contains(t, saw, "own-env:", "the thief's provisioner ran and reported")
	require.Contains(t, saw, "copy: cat: "+aHome+"/.slipway-credentials/dns: No such file or directory")
	require.Contains(t, saw, "source: cat: "+dnsFile+": No such file or directory")
	require.Contains(t, saw, fmt.Sprintf("cannot open /proc/%d/environ: No such file", os.Getpid()))
	require.NotContains(t, saw, cloudToken)
	require.NotContains(t, saw, dnsSecret)
	require.NotContains(t, saw, "CLOUD_TOKEN")
	require.Empty(t, e.SecretLeaks(t, []string{cloudToken, dnsSecret}))
}

// A stack removed from main after its instance deployed does not block destroying it: the
// destroy's terraform still gets the credentials the instance recorded, and reports them on
// destroy.
func TestCredentialsOfAStackGoneSinceTheDeploy(t *testing.T) {
	stamp := fmt.Sprint(time.Now().UnixNano())
	cloudToken := "cloudtoken-gone-" + stamp
	dir := t.TempDir()
	mapping := filepath.Join(dir, "credentials.yaml")
	require.NoError(t, os.WriteFile(mapping, []byte("cloud: {env: STACKS_CLOUD_G, as: CLOUD_TOKEN, stacks: [gone]}\n"), 0o600))
	t.Setenv("STACKS_CLOUD_G", cloudToken)
	t.Setenv("SLIPWAY_CREDENTIALS_FILE", mapping)
	out := t.TempDir()
	t.Setenv(terraform.EnvSandboxBinds, out) // the destroy provisioner's report; terraform runs in bubblewrap
	e := testsuite.NewEnv(t)
	stack := map[string][]byte{
		"stacks/gone/schema.yaml":             []byte(brokenSchema + "credentials: [cloud]\n"),
		"stacks/gone/manifests/app.yaml.tmpl": []byte(brokenManifest),
		"stacks/gone/terraform/main.tf.tmpl": []byte(`resource "terraform_data" "probe" {
  input = {{ quote .Params.greeting }}
  provisioner "local-exec" {
    when    = destroy
    command = "echo \"cloud=$${CLOUD_TOKEN:-unset}\" > ` + out + `/destroyed"
  }
}
`),
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "a stack with a credential", stack)
	e.MustCLI(0, "create", "acme/g", "-f", writeFile(t, "stack: gone\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "acme/g", "--wait")
	for p := range stack {
		stack[p] = nil
	}
	testsuite.PushFiles(t, e.GitOpsRepo, "the stack is retired", stack)
	e.MustCLI(0, "destroy", "acme/g", "--wait")
	require.Equal(t, "cloud="+cloudToken+"\n", readOut(t, out, "destroyed"))
}
