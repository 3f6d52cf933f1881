package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// slipway windows lists the bundle's windows for a scope and says when it next opens; a window
// with a bad cron line or time zone stops the bundle loading (exit 2), naming the field.
func TestWindowsListsTheBundlesWindowsAndRefusesBadOnes(t *testing.T) {
	dir := policyDir(t)
	write := func(windows string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "data.json"), []byte(
			`{"slipway": {"groups": ["platform-admins", "tenant:*"], "windows": `+windows+`}}`), 0o644))
	}
	write(`[{"name": "never-now", "kind": "deny", "start": "* * * * *", "duration": "2m", "tenants": ["acme"]},
	        {"name": "weekends", "start": "0 0 * * 6", "duration": "48h", "timeZone": "Europe/Berlin", "stacks": ["db"]}]`)
	code, out, errs := run(t, "windows", "--tenant", "acme", "--dir", dir)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "never-now")
	require.Contains(t, out, "tenant acme: closed; no window opens within a year", "a freeze from every minute for two never ends")
	code, out, _ = run(t, "windows", "--tenant", "other", "--stack", "web", "--dir", dir)
	require.Equal(t, ExitOK, code)
	require.Contains(t, out, "no change window covers tenant other, stack web")

	// A label-scoped window covers only instances carrying its labels.
	write(`[{"name": "gold", "start": "0 9 * * *", "duration": "1h", "tenants": ["acme"], "labels": {"tier": "gold"}}]`)
	code, out, errs = run(t, "windows", "--tenant", "acme", "--label", "tier=gold", "--label", "region=eu", "--dir", dir)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, out, "tier=gold")
	require.Contains(t, out, "tenant acme, labels region=eu, tier=gold: ")
	code, out, _ = run(t, "windows", "--tenant", "acme", "--label", "tier=silver", "--dir", dir)
	require.Equal(t, ExitOK, code)
	require.Contains(t, out, "no change window covers tenant acme, labels tier=silver")
	code, _, errs = run(t, "windows", "--label", "tier", "--dir", dir)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, `--label "tier": must be KEY=VALUE`)
	write(`[{"name": "gold", "start": "0 9 * * *", "duration": "1h", "labels": {"tier": "gold gold"}}]`)
	code, _, errs = run(t, "policy", "check", "--dir", dir)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, `data.slipway.windows[0] (gold).labels.tier: "gold gold" must be`)

	write(`[{"name": "bad", "start": "0 25 * * *", "duration": "1h"}]`)
	code, _, errs = run(t, "windows", "--dir", dir)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, "data.slipway.windows[0] (bad).start")
	write(`[{"name": "bad", "start": "0 9 * * *", "duration": "1h", "timeZone": "Mars/Base"}]`)
	code, _, errs = run(t, "policy", "check", "--dir", dir)
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, `data.slipway.windows[0] (bad).timeZone: "Mars/Base" is not an IANA time zone`)
}
