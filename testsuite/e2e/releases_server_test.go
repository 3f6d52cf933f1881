package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// Through `slipway server`, cutting a release, reading them, pointing a channel, previewing a stack
// and undoing a rollout are the direct commands' own: carol (a platform admin) cuts, reads and
// points, recorded as the one who cut; alice (a tenant member) is refused by the policy (exit 3); a --from whose
// stack files main never merged is refused naming --from (exit 2), through the server and not.
// An upgrade deadline through the server is carol's too: alice is refused, a --min that is no
// release is refused naming min, and carol's starts the wave that re-pins other/skew (on main's
// head). stack status through the server counts only the tenants the person may read: alice sees
// acme's and that one other tenant was left out, no deadlines, and is refused other's; carol sees
// the deadline's progress.
func TestStackReleasesThroughTheServer(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startServer(t, e, p)
	alice, carol := signIn(t, p, "alice"), signIn(t, p, "carol")
	as := func(tok string, want int, args ...string) testsuite.Result {
		t.Helper()
		t.Setenv("SLIPWAY_TOKEN", tok)
		return e.MustCLI(want, append([]string{"--server", url}, args...)...)
	}

	r := as(alice, 3, "stack", "release", "example", "1.0.0", "--notes", "first")
	require.Contains(t, r.Stderr, "denied by policy: alice may not")
	require.Contains(t, as(carol, 0, "stack", "release", "example", "1.0.0", "--notes", "first").Stdout, "release example@1.0.0 cut from")
	var res contract.StackResult
	as(alice, 3, "stack", "releases", "example")
	require.NoError(t, json.Unmarshal([]byte(as(carol, 0, "stack", "releases", "example", "-o", "json").Stdout), &res))
	require.Len(t, res.Releases, 1)
	require.Contains(t, res.Releases[0].CutBy, "carol", "the workflow records the signed-in person")

	as(alice, 3, "stack", "channel", "example", "stable", "1.0.0")
	require.Contains(t, as(carol, 0, "stack", "channel", "example", "stable", "1.0.0").Stdout, "channel stable of example is 1.0.0")

	// A commit on a branch main never merged, changing the stack.
	clone := filepath.Join(t.TempDir(), "clone")
	testsuite.Git(t, filepath.Dir(clone), "clone", "-q", "--branch", "main", e.GitOpsRepo, clone)
	testsuite.Git(t, clone, "checkout", "-q", "-b", "unreviewed")
	tmpl := filepath.Join(clone, "stacks", "example", "manifests", "app.yaml.tmpl")
	orig, err := os.ReadFile(tmpl)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tmpl, append(orig, "  unreviewed: true\n"...), 0o644))
	testsuite.Git(t, clone, "commit", "-q", "-am", "unreviewed")
	testsuite.Git(t, clone, "push", "-q", "origin", "unreviewed")
	sha := strings.TrimSpace(testsuite.Git(t, clone, "rev-parse", "HEAD"))
	for _, r := range []testsuite.Result{
		as(carol, 2, "stack", "release", "example", "1.1.0", "--notes", "x", "--from", sha),
		e.MustCLI(2, "stack", "release", "example", "1.1.0", "--notes", "x", "--from", sha),
	} {
		require.Contains(t, r.Stdout+r.Stderr, "--from: "+sha+" is not on main's history")
	}

	// A preview of every tenant is a platform admin's; carol's ends with nothing to plan.
	as(alice, 3, "stack", "preview", "example", "--to", "1.0.0")
	require.Contains(t, as(carol, 0, "stack", "preview", "example", "--to", "1.0.0", "--id", "p-srv").Stdout, "preview p-srv of stack example → 1.0.0 (done)")
	require.Contains(t, as(carol, 0, "stack", "preview", "show", "p-srv", "--stack", "example").Stdout, "preview p-srv of stack example")
	r = as(carol, 2, "rollout", "undo", "r-none", "--id", "r-undo")
	require.Contains(t, r.Stdout+r.Stderr, "r-none")

	e.MustCLI(0, "create", "acme/skew", "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "create", "other/skew", "-f", writeFile(t, "stack: example\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", "other/skew", "--wait") // a rollout skips an instance never deployed
	counts := func(tok string) (out []client.ReleaseCount) {
		require.NoError(t, json.Unmarshal([]byte(as(tok, 0, "stack", "status", "example", "-o", "json").Stdout), &out))
		return out
	}
	require.Eventually(t, func() bool { return len(counts(carol)) == 2 }, 20*time.Second, 200*time.Millisecond, "visibility lists both instances")
	by := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second).Format(time.RFC3339)
	require.Contains(t, as(alice, 3, "stack", "deadline", "example", "--min", "1.0.0", "--by", by).Stderr, "alice may not")
	require.Contains(t, as(carol, 2, "stack", "deadline", "example", "--min", "9.9.9", "--by", by).Stderr, "min: 9.9.9: not a release of stack example")
	r = as(carol, 0, "stack", "deadline", "example", "--min", "1.0.0", "--by", by)
	require.Contains(t, r.Stdout, "1 behind, in 1 wave(s)")
	require.Regexp(t, `\s+other\s+other/skew\s+deadline-\w+-1\n`, r.Stdout)
	require.Eventually(t, func() bool {
		return strings.Contains(testsuite.Git(t, e.GitOpsRepo, "show", "main:instances/other/skew/instance.yaml"), "stack: example@1.0.0")
	}, 2*time.Minute, 500*time.Millisecond, "the wave carol's deadline started re-pins other/skew")

	mine := counts(alice)
	require.Len(t, mine, 1, "alice counts only acme: %v", mine)
	require.Equal(t, client.ReleaseCount{Release: "example@1.0.0", Tenant: "acme", Total: 1, Ready: mine[0].Ready}, mine[0])
	r = as(alice, 0, "stack", "status", "example")
	require.Contains(t, r.Stdout, "1 other tenant(s) run example: not shown, you may not read them")
	require.NotRegexp(t, `(?m)^\S+\s+other\s+\d`, r.Stdout, "no row of tenant other")
	require.Contains(t, r.Stderr, "deadlines not shown: ")
	as(alice, 3, "stack", "status", "example", "--tenant", "other")
	require.Contains(t, as(carol, 0, "stack", "status", "example").Stdout, "deadline 1.0.0 by "+by+": ")
	require.Contains(t, as(carol, 2, "stack", "status", "example", "--dir", t.TempDir()).Stderr, "--dir: through --server")
}
