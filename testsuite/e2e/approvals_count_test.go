package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/testsuite"
)

// A policy that asks for two platform approvals gets two distinct people: the first approval
// counts and the operation keeps waiting; the same person approving again is refused; the second
// person's approval lets the destroy run.
func TestTwoApprovalsAreTwoPeople(t *testing.T) {
	dir := t.TempDir()
	rego, err := os.ReadFile(filepath.Join("..", "..", "internal", "policy", "default", "slipway.rego"))
	require.NoError(t, err)
	const one = `approval := {"groups": ["platform-admins"], "count": 1, "allowSelf": false}`
	require.Contains(t, string(rego), one)
	two := strings.Replace(string(rego), one, `approval := {"groups": ["platform-admins"], "count": 2, "allowSelf": false}`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"), []byte(two), 0o644))
	data, err := json.Marshal(map[string]any{"slipway": map[string]any{"groups": []string{"platform-admins", "tenant:*"}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644))
	t.Setenv(policy.EnvDir, dir)

	e := testsuite.NewEnv(t)
	const ref = "two/web"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait")
	as(t, "alice:tenant:two", func() { e.MustCLI(0, "destroy", ref) })
	var w *contract.ApprovalWait
	require.Eventually(t, func() bool {
		as(t, "carol:platform-admins", func() { w = e.Status(ref).Approval })
		return w != nil && w.Hash != ""
	}, time.Minute, 100*time.Millisecond)
	require.Equal(t, 2, w.Required.Count)

	as(t, "carol:platform-admins", func() { e.MustCLI(0, "approve", ref, "--plan", w.Hash) })
	as(t, "carol:platform-admins", func() {
		st := e.Status(ref)
		require.Equal(t, lifecycle.Destroying, st.State, "one of two approvals: still waiting")
		require.Len(t, st.Approval.Approvals, 1)
		require.Contains(t, e.MustCLI(0, "status", ref).Stdout, "(1 of 2 given)")
		r := e.CLI("approve", ref, "--plan", w.Hash)
		require.NotEqual(t, 0, r.Code)
		require.Contains(t, r.Stderr, "carol has already approved: approvals count distinct people")
	})
	as(t, "dave:platform-admins", func() { e.MustCLI(0, "approve", ref, "--plan", w.Hash) })
	require.Eventually(t, func() bool { return e.Status(ref).State == lifecycle.Destroyed }, 2*time.Minute, 100*time.Millisecond)
	log := e.MustCLI(0, "status", ref, "-o", "all", "--json").Stdout
	require.Contains(t, log, `"actor": "carol, dave"`, "the decision names both approvers")
}
