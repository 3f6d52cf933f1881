package e2e

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/notify"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/testsuite"
)

// An upgrade deadline on the real dev server: tenant dl may change only in a window opening at the
// top of the hour three hours on; no window covers tenant dlnow. A deadline before that opening is
// refused at once naming the instance below --min, nothing recorded; one after it is recorded in
// the releases file with dl's wave at the opening, held by Temporal as a delayed rollout, while
// dlnow's wave starts at once and re-pins it; stack status shows dl one behind and that projected
// finish; dl's webhook sink got the signed UpgradePlanned notification naming dl/old and the opening.
// A deadline in the past, or a --min that is not a release, is refused (exit 2) naming the flag.
func TestStackDeadlinePlansWavesInsideTheWindows(t *testing.T) {
	opens := time.Now().UTC().Truncate(time.Hour).Add(3 * time.Hour)
	dir := windowPolicy(t, []map[string]any{{"name": "dl-nightly", "start": opens.Format("4 15 * * *"), "duration": "1h",
		"tenants": []string{"dl"}, "stacks": []string{"example"}}})
	t.Setenv(policy.EnvDir, "") // the worker holds nothing: the creates below run now; the CLI plans with --dir
	rc := &receiver{secret: []byte("deadline-hook-secret")}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	t.Setenv("SLIPWAY_E2E_HOOK_SECRET", string(rc.secret))
	hooks := filepath.Join(t.TempDir(), "notify.yaml")
	require.NoError(t, os.WriteFile(hooks, []byte(fmt.Sprintf("sinks:\n  - name: dl\n    kind: webhook\n    url: %s/hook\n    secretEnv: SLIPWAY_E2E_HOOK_SECRET\n    events: [UpgradePlanned]\n    tenants: [dl]\n", srv.URL)), 0o600))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) { o.NotifyFile = hooks })
	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "second")
	e.MustCLI(0, "create", "dl/old", "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "create", "dl/new", "-f", writeFile(t, "stack: example@1.1.0\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "create", "dlnow/web", "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "dlnow/web", "--wait")
	counted := func(tenant string, n int) bool {
		var counts []client.ReleaseCount
		return json.Unmarshal([]byte(e.MustCLI(0, "stack", "status", "example", "--tenant", tenant, "-o", "json").Stdout), &counts) == nil && len(counts) == n
	}
	require.Eventually(t, func() bool { return counted("dl", 2) && counted("dlnow", 1) }, 20*time.Second, 200*time.Millisecond, "visibility lists the instances")

	out := e.MustCLI(2, "stack", "deadline", "example", "--min", "1.1.0", "--by", "2020-01-15", "--dir", dir)
	require.Contains(t, out.Stderr, "--by 2020-01-15T00:00:00Z: is not in the future")
	out = e.MustCLI(2, "stack", "deadline", "example", "--min", "9.9.9", "--by", "2099-01-15", "--dir", dir)
	require.Contains(t, out.Stderr, "--min 9.9.9: not a release of stack example")
	out = e.MustCLI(2, "stack", "deadline", "nosuch", "--min", "1.1.0", "--by", "2099-01-15", "--dir", dir)
	require.Contains(t, out.Stderr, `STACK "nosuch": has no releases`)

	out = e.MustCLI(1, "stack", "deadline", "example", "--min", "1.1.0", "--by", opens.Add(-time.Hour).Format(time.RFC3339), "--dir", dir)
	require.Contains(t, out.Stderr, "cannot be met inside the change windows")
	require.Contains(t, out.Stderr, "dl/old")
	require.NotContains(t, out.Stderr, "dl/new", "dl/new runs 1.1.0 already")
	require.NotContains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/example/releases.yaml"), "deadlines:", "nothing recorded")

	by := opens.Add(48 * time.Hour)
	out = e.MustCLI(0, "stack", "deadline", "example", "--min", "1.1.0", "--by", by.Format(time.RFC3339), "--dir", dir)
	require.Regexp(t, opens.Format(time.RFC3339)+`\s+dl\s+dl/old\s+deadline-\w+-2\n`, out.Stdout)
	require.Regexp(t, `\s+dlnow\s+dlnow/web\s+deadline-\w+-1\n`, out.Stdout)
	// dl's wave is a rollout Temporal holds until the opening; dlnow's ran now and re-pinned it.
	waveListed := regexp.MustCompile(`deadline-\w+-2\s+example\s+Running`)
	require.Eventually(t, func() bool { return waveListed.MatchString(e.MustCLI(0, "rollout", "list").Stdout) },
		20*time.Second, 200*time.Millisecond, "the delayed wave is listed (visibility follows its start)")
	require.Eventually(t, func() bool {
		return strings.Contains(testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/dlnow/web/instance.yaml"), "stack: example@1.1.0")
	}, 2*time.Minute, 500*time.Millisecond, "dlnow's wave re-pins it")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/dl/old/instance.yaml"), "stack: example@1.0.0", "dl waits for its window")
	file := testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/example/releases.yaml")
	require.Contains(t, file, "deadlines:")
	require.Contains(t, file, "min: 1.1.0")
	require.Contains(t, file, "- dl/old")

	// dl's tenant hears of its wave ahead of the opening, signed; dlnow's is not sent to dl's sink.
	require.Eventually(t, func() bool {
		rc.mu.Lock()
		defer rc.mu.Unlock()
		for _, ev := range rc.got {
			if ev.Kind == notify.KindUpgradePlanned && ev.Tenant == "dl" && strings.Contains(ev.Message, "dl/old: upgrade to example@1.1.0 planned in the change window opening at "+opens.Format(time.RFC3339)) {
				return true
			}
		}
		return false
	}, 30*time.Second, 200*time.Millisecond, "the UpgradePlanned notification")
	rc.mu.Lock()
	for _, ev := range rc.got {
		require.NotEqual(t, "dlnow", ev.Tenant)
	}
	require.Empty(t, rc.refused)
	rc.mu.Unlock()

	out = e.MustCLI(0, "stack", "status", "example", "--tenant", "dl", "--dir", dir)
	require.Contains(t, out.Stdout, "deadline 1.1.0 by "+by.Format(time.RFC3339)+": 1 behind; projected finish "+opens.Format(time.RFC3339)+" (last wave opens then); on track")
}
