package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/testsuite"
)

// A stack change pushed to main rolls out with --stack-rev: every instance's config is rendered
// again against it (a merge each) and deployed; afterwards the plan finds them all at the target.
// A --stack-rev that main has moved past is refused.
func TestRolloutOfAStackRevision(t *testing.T) {
	e := testsuite.NewEnv(t)
	cfg := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	for _, ref := range []string{"rev/web-0", "rev/web-1"} {
		e.MustCLI(0, "create", ref, "-f", cfg, "--wait")
		e.MustCLI(0, "deploy", ref, "--wait")
	}
	tmpl := filepath.Join("..", "..", "examples", "stacks", "example", "manifests", "app.yaml.tmpl")
	data, err := os.ReadFile(tmpl)
	require.NoError(t, err)
	change := func(label string) string {
		testsuite.PushFiles(t, e.GitOpsRepo, "stack: "+label, map[string][]byte{
			"stacks/example/manifests/app.yaml.tmpl": append(append([]byte(nil), data...), []byte("# "+label+"\n")...)})
		return testsuite.Git(t, e.GitOpsRepo, "rev-parse", "main")
	}
	old := change("first change")
	rev := change("second change")

	stale := e.CLI("rollout", "plan", "--stack", "example", "--tenant", "rev", "--stack-rev", old)
	require.Equal(t, 2, stale.Code, stale.Stdout)
	require.Contains(t, stale.Stderr, "stack example on main changed after it")

	plan := e.MustCLI(0, "rollout", "plan", "--stack", "example", "--tenant", "rev", "--stack-rev", rev)
	require.Contains(t, plan.Stdout, "2 to update in 2 batch(es) of 25%")
	require.Contains(t, plan.Stdout, "stack@"+rev[:12])
	e.MustCLI(0, "rollout", "start", "--id", "stackrev", "--stack", "example", "--tenant", "rev", "--stack-rev", rev,
		"--batch", "100%", "--wait")
	st := rolloutStatus(t, e, "stackrev")
	require.Equal(t, contract.PhaseCompleted, st.Phase)
	require.Equal(t, 2, st.Updated)
	for _, ref := range []string{"rev/web-0", "rev/web-1"} {
		dir := "instances/" + ref + "/manifests"
		require.Contains(t, testsuite.Git(t, e.GitOpsRepo, "grep", "-h", "second change", "main", "--", dir), "second change",
			"%s's manifests are rendered from the new stack", ref)
	}
	again := e.MustCLI(0, "rollout", "plan", "--stack", "example", "--tenant", "rev", "--stack-rev", rev)
	require.Contains(t, again.Stdout, "0 to update in 0 batch(es) of 25%, 2 skipped")
}
