package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/testsuite"
)

// windowPolicy is the default policy with data.slipway.windows, as SLIPWAY_POLICY_DIR.
func windowPolicy(t *testing.T, windows []map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	rego, err := os.ReadFile(filepath.Join("..", "..", "internal", "policy", "default", "slipway.rego"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"), rego, 0o644))
	data, err := json.Marshal(map[string]any{"slipway": map[string]any{"groups": []string{"platform-admins", "tenant:*"}, "windows": windows}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), data, 0o644))
	t.Setenv(policy.EnvDir, dir)
	return dir
}

// Change windows on the real dev server: tenant win may change only inside a window opening at
// the next minute. A create sent before it is accepted and waits, visibly, then starts when the
// window opens; a platform admin's --override-window --reason starts at once and is audited.
func TestAnOperationOutsideItsWindowWaitsAndStartsWhenItOpens(t *testing.T) {
	opens := time.Now().UTC().Truncate(time.Minute).Add(time.Minute)
	if time.Until(opens) < 15*time.Second {
		opens = opens.Add(time.Minute)
	}
	dir := windowPolicy(t, []map[string]any{{"name": "win-hours", "start": fmt.Sprintf("%d %d * * *", opens.Minute(), opens.Hour()),
		"duration": "1h", "tenants": []string{"win"}}})
	e := testsuite.NewEnv(t)
	cfg := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")

	out := e.MustCLI(0, "windows", "--tenant", "win", "--dir", dir).Stdout
	require.Contains(t, out, "win-hours")
	require.Contains(t, out, "tenant win: closed; next opening at "+opens.Format(time.RFC3339))

	e.MustCLI(0, "create", "win/web", "-f", cfg)
	require.Eventually(t, func() bool { w := e.Status("win/web").Waiting; return w != nil && w.Window != nil }, 30*time.Second, 50*time.Millisecond)
	st := e.Status("win/web")
	require.Equal(t, lifecycle.NoConfiguration, st.State, "nothing changes while it waits")
	require.True(t, st.Waiting.Window.Equal(opens), "waits for %s, not %s", opens, st.Waiting.Window)
	sched := conditionOf(st.Conditions, contract.CondScheduled)
	require.Equal(t, "OutsideChangeWindow", sched.Reason)
	require.Contains(t, sched.Message, "provision waiting for the change window opening at "+opens.Format(time.RFC3339))
	require.Contains(t, e.MustCLI(0, "status", "win/web").Stdout, "waiting for the change window opening at")
	require.Contains(t, e.MustCLI(2, "deploy", "win/web").Stderr, "provision waiting for the change window opening at")

	// A platform admin's override starts now, and says why in the audit.
	require.Contains(t, e.MustCLI(2, "create", "win/hot", "-f", cfg, "--override-window").Stderr, "--override-window needs --reason")
	e.MustCLI(0, "create", "win/hot", "-f", cfg, "--override-window", "--reason", "hotfix for the outage", "--wait")
	require.Equal(t, lifecycle.ConfigurationCreated, e.Status("win/hot").State)
	require.True(t, time.Now().Before(opens), "the override did not wait for the window")
	require.Contains(t, e.MustCLI(0, "audit", "--tenant", "win").Stdout, "overrides the change windows: hotfix for the outage")

	require.Eventually(t, func() bool { return e.Status("win/web").State == lifecycle.ConfigurationCreated }, 2*time.Minute, 200*time.Millisecond)
	require.False(t, time.Now().Before(opens), "it started when the window opened")
	st = e.Status("win/web")
	require.Nil(t, st.Waiting)
	require.Nil(t, conditionOrNil(st.Conditions, contract.CondScheduled))
}
