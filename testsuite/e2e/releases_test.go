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
)

// A pinned instance renders its release's files on every deploy, never what main merged into the
// stack since; re-pinning it takes the other release's files; stack status counts the skew; and
// bad releases are refused, naming the flag or field.
func TestPinnedInstanceRendersItsRelease(t *testing.T) {
	e := testsuite.NewEnv(t)
	ref := contract.Ref{Tenant: "rel", Name: "web"}
	dir := "instances/rel/web"
	tmplPath := "stacks/example/manifests/app.yaml.tmpl"
	orig, err := os.ReadFile(filepath.Join("..", "..", "examples", "stacks", "example", "manifests", "app.yaml.tmpl"))
	require.NoError(t, err)
	withMarker := func(m string) map[string][]byte {
		return map[string][]byte{tmplPath: []byte(string(orig) + "  marker: " + m + "\n")}
	}

	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: 1.1 adds a marker", withMarker("one-one"))
	out := e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "adds a marker")
	require.Contains(t, out.Stdout, "release example@1.1.0 cut from")
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: main moves on", withMarker("main-head"))

	out = e.MustCLI(0, "stack", "releases", "example", "-o", "json")
	var rels contract.StackResult
	require.NoError(t, json.Unmarshal([]byte(out.Stdout), &rels))
	require.Len(t, rels.Releases, 2)
	require.Equal(t, "first", rels.Releases[0].Notes)
	require.NotEmpty(t, rels.Releases[0].CutBy, "the release names who cut it (the verified actor)")

	rendered := func() string { return testsuite.Git(t, e.GitOpsRepo, "show", "main:"+dir+"/manifests/app.yaml") }
	e.MustCLI(0, "create", ref.String(), "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	require.NotContains(t, rendered(), "marker", "create renders 1.0.0, not main's head")

	// A tenant's deploy -f with a changed parameter still renders 1.0.0's files.
	e.MustCLI(0, "deploy", ref.String(), "-f", writeFile(t, "stack: example@1.0.0\nparameters:\n  greeting: bonjour\n"), "--wait")
	require.Contains(t, rendered(), "bonjour")
	require.NotContains(t, rendered(), "marker", "deploy -f renders the pinned release")
	require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "show", "main:"+dir+"/instance.yaml"), "stack: example@1.0.0")
	e.MustCLI(0, "deploy", ref.String(), "--wait") // a plain deploy re-renders the same release: nothing to merge
	require.NotContains(t, rendered(), "marker")

	// plan --to previews 1.1.0 from one render and changes nothing.
	out = e.MustCLI(0, "plan", ref.String(), "--to", "1.1.0")
	require.Contains(t, out.Stdout, "+  marker: one-one")
	require.Contains(t, out.Stdout, "+stack: example@1.1.0")
	require.NotContains(t, rendered(), "marker")

	// Re-pinning takes 1.1.0's files, still not main's head.
	e.MustCLI(0, "deploy", ref.String(), "-f", writeFile(t, "stack: example@1.1.0\nparameters:\n  greeting: bonjour\n"), "--wait")
	require.Contains(t, rendered(), "marker: one-one")

	// The skew: one instance on 1.1.0 in tenant rel, and the list's RELEASE column.
	// Scoped to the tenant: the dev server is shared, and an earlier test's fleet of the same
	// stack may still run (CI: tenant-a's 100 instances made the count never one).
	var counts []client.ReleaseCount
	require.Eventually(t, func() bool {
		out := e.MustCLI(0, "stack", "status", "example", "--tenant", "rel", "-o", "json")
		counts = nil
		return json.Unmarshal([]byte(out.Stdout), &counts) == nil && len(counts) == 1 && counts[0].Release == "example@1.1.0"
	}, time.Minute, 200*time.Millisecond, "stack status of tenant rel")
	require.Equal(t, client.ReleaseCount{Release: "example@1.1.0", Tenant: "rel", Total: 1, Ready: counts[0].Ready}, counts[0])
	require.Regexp(t, `rel/web\s+example\s+1\.1\.0\s+Deployed`, e.MustCLI(0, "list", "--stack", "example").Stdout)

	// A channel is one audited step; an unknown release is refused naming it.
	e.MustCLI(0, "stack", "channel", "example", "stable", "1.1.0")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stack", "release", "example", "1.1.0", "--notes", "again"}, "release example@1.1.0 exists already"},
		{[]string{"stack", "release", "example", "1.2", "--notes", "x"}, "VERSION \"1.2\""},
		{[]string{"stack", "channel", "example", "stable", "9.9.9"}, "unknown release example@9.9.9"},
		{[]string{"plan", ref.String(), "--to", "9.9.9"}, "--to: unknown release example@9.9.9; releases: 1.0.0, 1.1.0; channels: stable=1.1.0"},
		{[]string{"plan", ref.String(), "--to", "other@1.0.0"}, "a release of stack other"},
		{[]string{"deploy", ref.String(), "-f", writeFile(t, "stack: example@3.0.0\nparameters:\n  greeting: x\n")}, "unknown release example@3.0.0"},
	} {
		out := e.MustCLI(2, c.args...)
		require.Contains(t, out.Stdout+out.Stderr, c.want, strings.Join(c.args, " "))
	}
	// A release whose files do not load is refused, naming the file and line.
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: a broken template", map[string][]byte{tmplPath: []byte("data: {{ .Params.greeting \n")})
	out = e.MustCLI(2, "stack", "release", "example", "1.2.0", "--notes", "broken")
	require.Contains(t, out.Stdout+out.Stderr, "manifests/app.yaml.tmpl")
	require.Regexp(t, `manifests/app\.yaml\.tmpl:\d+`, out.Stdout+out.Stderr)
}
