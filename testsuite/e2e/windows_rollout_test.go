package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
)

// A rollout wave held by a label-scoped window on the real dev server: tenant lwin's instances
// labelled tier: gold may change only inside a window opening at the next minute. The rollout's
// deploy of lwin/plain (no label) runs at once; that of lwin/gold waits, visibly, with its wave
// not finished, and when the window opens it runs and the rollout completes.
func TestARolloutWaveWaitsForItsLabelScopedWindow(t *testing.T) {
	opens := time.Now().UTC().Truncate(time.Minute).Add(time.Minute)
	if time.Until(opens) < 30*time.Second {
		opens = opens.Add(time.Minute)
	}
	dir := windowPolicy(t, []map[string]any{{"name": "gold-hours", "start": fmt.Sprintf("%d %d * * *", opens.Minute(), opens.Hour()),
		"duration": "1h", "tenants": []string{"lwin"}, "labels": map[string]string{"tier": "gold"}}})
	e := testsuite.NewEnv(t)

	out := e.MustCLI(0, "windows", "--tenant", "lwin", "--label", "tier=gold", "--dir", dir).Stdout
	require.Contains(t, out, "tier=gold")
	require.Contains(t, out, "tenant lwin, labels tier=gold: closed; next opening at "+opens.Format(time.RFC3339))
	require.Contains(t, e.MustCLI(0, "windows", "--tenant", "lwin", "--label", "tier=silver", "--dir", dir).Stdout, "no change window covers")
	require.Contains(t, e.MustCLI(2, "windows", "--label", "tier", "--dir", dir).Stderr, `--label "tier": must be KEY=VALUE`)

	bad := writeFile(t, "stack: example\nlabels: {tier: gold gold}\nparameters:\n  greeting: hello\n")
	require.Contains(t, e.MustCLI(2, "create", "lwin/bad", "-f", bad).Stderr, "labels.tier")

	gold := writeFile(t, "stack: example\nlabels: {tier: gold, region: eu}\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "lwin/gold", "-f", gold, "--override-window", "--reason", "setup", "--wait")
	e.MustCLI(0, "deploy", "lwin/gold", "--override-window", "--reason", "setup", "--wait")
	plain := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "lwin/plain", "-f", plain, "--wait")
	e.MustCLI(0, "deploy", "lwin/plain", "--wait")
	require.Equal(t, map[string]string{"tier": "gold", "region": "eu"}, e.Status("lwin/gold").Labels)
	require.Contains(t, e.MustCLI(0, "status", "lwin/gold").Stdout, "labels: region=eu, tier=gold")
	require.True(t, time.Now().Before(opens), "the setup ran before the window opened; raise the margin")

	e.MustCLI(0, "rollout", "start", "--id", "lwin", "--stack", "example", "--tenant", "lwin", "--set", "greeting=rolled", "--batch", "100%")
	require.Eventually(t, func() bool { w := e.Status("lwin/gold").Waiting; return w != nil && w.Window != nil }, 30*time.Second, 100*time.Millisecond,
		"lwin/gold waits: %s", e.CLI("status", "lwin/gold").Stdout)
	require.Contains(t, e.MustCLI(0, "status", "lwin/gold").Stdout, "deploy waiting for the change window opening at "+opens.Format(time.RFC3339))
	var st contract.RolloutStatus
	require.Eventually(t, func() bool {
		st = rolloutStatus(t, e, "lwin")
		return rolloutInstance(st, "lwin/plain") == contract.RolloutUpdated
	}, 30*time.Second, 200*time.Millisecond, "no window covers lwin/plain: its deploy runs at once")
	require.NotEqual(t, contract.RolloutUpdated, rolloutInstance(st, "lwin/gold"))
	require.Equal(t, contract.PhaseRunning, st.Phase, "the wave waits for lwin/gold")
	require.Empty(t, st.Ended, "the wave is not finished")
	require.True(t, time.Now().Before(opens))

	e.MustCLI(0, "rollout", "status", "lwin", "--follow")
	require.False(t, time.Now().Before(opens), "lwin/gold deployed when the window opened")
	st = rolloutStatus(t, e, "lwin")
	require.Equal(t, contract.PhaseCompleted, st.Phase)
	require.Equal(t, lifecycle.Deployed, e.Status("lwin/gold").State)
	require.Nil(t, e.Status("lwin/gold").Waiting)
}

// rolloutInstance is the rollout's status of the instance ref.
func rolloutInstance(st contract.RolloutStatus, ref string) string {
	for _, in := range st.Instances {
		if in.Ref.String() == ref {
			return in.Status
		}
	}
	return ""
}
