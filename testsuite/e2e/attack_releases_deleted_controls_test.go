package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// The stack's controls hold while its releases file is refused. acme/db runs guarded@1.0.0,
// whose stack says an archive needs an approval. alice (tenant acme, who may commit to the GitOps
// repository) deletes releases/guarded/releases.yaml on main, then archives acme/db through the
// server: the deletion is refused as the stack's release, and resolving the revision then fell
// back to the instance file's own controls ("a stack broken or gone must not block archiving"),
// so the archive ran with no approval, as if the stack had none. Now it fails naming the file.
func TestAttackDeletedReleasesFileDropsTheStacksControls(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startServer(t, e, p)
	alice := signIn(t, p, "alice")
	testsuite.PushFiles(t, e.GitOpsRepo, "a guarded stack", guardedStack("guarded",
		"approval: {policy: destructive, approvers: [carol], timeout: 1h}\n", nil))
	e.MustCLI(0, "stack", "release", "guarded", "1.0.0", "--notes", "first")
	const ref = "acme/db"
	e.MustCLI(0, "create", ref, "-f", writeFile(t, "stack: guarded@1.0.0\nparameters:\n  greeting: hello\n"), "--wait")
	e.MustCLI(0, "deploy", ref, "--wait") // adds only: no approval
	require.Equal(t, lifecycle.Deployed, e.Status(ref).State)

	testsuite.PushFiles(t, e.GitOpsRepo, "no more releases", map[string][]byte{"releases/guarded/releases.yaml": nil})
	t.Setenv("SLIPWAY_TOKEN", alice)
	e.MustCLI(0, "--server", url, "archive", ref)
	var st = e.Status(ref)
	require.Eventually(t, func() bool { st = e.Status(ref); return st.Failure != nil || st.State == lifecycle.Archived },
		30*time.Second, 100*time.Millisecond)
	require.NotEqual(t, lifecycle.Archived, st.State, "archived with no approval, the stack's controls dropped")
	require.Contains(t, st.Failure.Error, "releases/guarded/releases.yaml: deleted", "refused naming the file, as every render is")
	require.Equal(t, "resolve-revision", st.Failure.Step, "before anything ran")
}
