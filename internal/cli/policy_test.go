package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/policy"
)

// policyDir copies the embedded default bundle to a directory to edit.
func policyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"data.json", "slipway.rego", "slipway_test.rego"} {
		src, err := os.ReadFile(filepath.Join("..", "policy", "default", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), src, 0o644))
	}
	return dir
}

func TestPolicyTestPasses(t *testing.T) {
	t.Setenv(policy.EnvDir, "")
	code, out, errs := run(t, "policy", "test")
	require.Equal(t, ExitOK, code, errs)
	require.Regexp(t, `PASS: \d+/\d+`, out)

	code, out, errs = run(t, "policy", "test", "-v", "--dir", policyDir(t))
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "test_member_cannot_approve_own_destroy")
}

// A failing test fails the command (exit 1) and names the test.
func TestPolicyTestFailureExits1(t *testing.T) {
	dir := policyDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bob_test.rego"), []byte(
		"package slipway_test\n\nimport data.slipway\n\ntest_bob_deploys_acme if {\n\tslipway.decision.allow with input as req(bob, \"deploy\")\n}\n"), 0o644))
	code, out, _ := run(t, "policy", "test", "--dir", dir)
	require.Equal(t, ExitFailed, code)
	require.Contains(t, out, "test_bob_deploys_acme")
	require.Contains(t, out, "FAIL: 1/")

	// SLIPWAY_POLICY_DIR is the default --dir.
	t.Setenv(policy.EnvDir, dir)
	code, _, _ = run(t, "policy", "test")
	require.Equal(t, ExitFailed, code)
}

// A policy that does not compile exits 2 naming its file and line, for test and check alike.
func TestPolicyThatDoesNotCompileExits2(t *testing.T) {
	dir := policyDir(t)
	broken := filepath.Join(dir, "slipway.rego")
	src, err := os.ReadFile(broken)
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	lines[7] = "pipeline_ops := {\"provision\", \"deploy\"" // line 8: the set never closes
	require.NoError(t, os.WriteFile(broken, []byte(strings.Join(lines, "\n")), 0o644))

	for _, sub := range []string{"test", "check"} {
		code, out, errs := run(t, "policy", sub, "--dir", dir)
		require.Equal(t, ExitUsage, code, sub)
		require.Regexp(t, `(?m)`+regexp.QuoteMeta(broken)+`:\d+: rego_parse_error`, errs, sub)
		require.NotContains(t, out, "PASS", sub)
	}
}

// An approval by a group the bundle does not declare is refused, naming the group, file and line.
func TestPolicyCheckRefusesUnknownGroup(t *testing.T) {
	dir := policyDir(t)
	p := filepath.Join(dir, "slipway.rego")
	src, err := os.ReadFile(p)
	require.NoError(t, err)
	edited := strings.Replace(string(src), `approval := {"groups": ["platform-admins"]`, `approval := {"groups": ["platform-admin"]`, 1)
	require.NotEqual(t, string(src), edited)
	require.NoError(t, os.WriteFile(p, []byte(edited), 0o644))
	code, _, errs := run(t, "policy", "check", "--dir", dir)
	require.Equal(t, ExitUsage, code)
	require.Regexp(t, regexp.QuoteMeta(p)+`:\d+: group "platform-admin" is not declared in data.slipway.groups`, errs)
}

func TestPolicyCheckPrintsTheHash(t *testing.T) {
	code, out, errs := run(t, "policy", "check", "--dir", policyDir(t))
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "hash: "+policy.Default().Hash(), "the same files hash the same")
}

func TestPolicyEval(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"actor": {"kind": "person", "issuer": "https://idp.test", "subject": "b", "name": "bob", "groups": ["tenant:other"]},
		"operation": "deploy", "tenant": "acme", "name": "web", "state": "running", "stack": {"name": "web"}}`), 0o644))
	code, out, errs := run(t, "policy", "eval", in)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, `"allow": false`)
	require.Contains(t, out, "tenant acme")

	require.NoError(t, os.WriteFile(in, []byte(`{"actor": {"kind": "person", "issuer": "i", "name": "bob"}, "operation": "nuke", "tenant": "acme", "name": "web", "stack": {}}`), 0o644))
	code, _, errs = run(t, "policy", "eval", in)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "operation")

	require.NoError(t, os.WriteFile(in, []byte(`{"actor": {}, "operashun": "deploy"}`), 0o644))
	code, _, errs = run(t, "policy", "eval", in)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, `unknown field "operashun"`)
}
