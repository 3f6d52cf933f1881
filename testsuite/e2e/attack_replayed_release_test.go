package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// The releases file is sealed (case 32), but a seal says only that slipway wrote the bytes once,
// not that they are main's latest decision. The platform points stable at 1.0.0, then at 1.1.0;
// alice (who may commit to the GitOps repository) restores the earlier sealed file on main and
// creates acme/old pinned to web@stable through the server: the worker recorded generation 4 of
// the file where only slipway writes, so the restored generation 3 is refused, naming the file,
// by the create and by every stack command, until the file is restored as slipway last wrote it;
// stable never renders 1.0.0 again.
func TestAttackReplayedReleasesFileMovesAChannelBack(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startServer(t, e, p)
	alice := signIn(t, p, "alice")
	tmplPath := "stacks/example/manifests/app.yaml.tmpl"
	orig, err := os.ReadFile(filepath.Join("..", "..", "examples", "stacks", "example", "manifests", "app.yaml.tmpl"))
	require.NoError(t, err)

	e.MustCLI(0, "stack", "release", "example", "1.0.0", "--notes", "first")
	testsuite.PushFiles(t, e.GitOpsRepo, "stack: 1.1 marks itself", map[string][]byte{tmplPath: []byte(string(orig) + "  marker: one-one\n")})
	e.MustCLI(0, "stack", "release", "example", "1.1.0", "--notes", "second")
	e.MustCLI(0, "stack", "channel", "example", "stable", "1.0.0")
	old := testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/example/releases.yaml")
	require.Contains(t, old, "generation: 3", "each of slipway's writes numbers the file, under the seal")
	e.MustCLI(0, "stack", "channel", "example", "stable", "1.1.0")
	latest := testsuite.Git(t, e.GitOpsRepo, "show", "main:releases/example/releases.yaml")

	testsuite.PushFiles(t, e.GitOpsRepo, "releases: as they were", map[string][]byte{"releases/example/releases.yaml": []byte(old + "\n")})
	const refusal = "releases/example/releases.yaml: replayed: main holds an earlier releases file slipway sealed (generation 3, older than generation 4, the last slipway wrote)"

	for _, args := range [][]string{{"stack", "releases", "example"}, {"stack", "channel", "example", "stable", "1.0.0"}} {
		r := e.CLI(args...)
		assert.Equal(t, 2, r.Code, "slipway %v refuses the replayed file as bad input naming it:\n%s%s", args, r.Stdout, r.Stderr)
		assert.Contains(t, r.Stdout+r.Stderr, refusal, "slipway %v", args)
	}

	t.Setenv("SLIPWAY_TOKEN", alice)
	r := e.CLI("--server", url, "create", "acme/old", "-f", writeFile(t, "stack: example@stable\nparameters:\n  greeting: hi\n"), "--wait")
	assert.Equal(t, 2, r.Code, "the create is refused before it starts, never rendered from the replayed channel:\n%s%s", r.Stdout, r.Stderr)
	assert.Contains(t, r.Stderr, refusal)
	_, err = exec.Command("git", "-C", e.GitOpsRepo, "cat-file", "-e", "main:instances/acme/old/manifests/app.yaml").CombinedOutput()
	assert.Error(t, err, "nothing of acme/old was rendered onto main")
	st := e.CLI("--server", url, "status", "acme/old")
	assert.Contains(t, st.Stderr, "instance acme/old does not exist", "refused up front: no instance was started")
	require.NoError(t, os.Unsetenv("SLIPWAY_TOKEN"))
	ss := e.CLI("stack", "status", "example")
	assert.Equal(t, 2, ss.Code, "the skew says every render of the stack is refused:\n%s%s", ss.Stdout, ss.Stderr)
	assert.Contains(t, ss.Stdout, "no running instances")
	assert.Contains(t, ss.Stderr, refusal)

	// The repair the refusal names: the file as slipway's last MR merged it; stable is 1.1.0 again.
	testsuite.PushFiles(t, e.GitOpsRepo, "releases: restored", map[string][]byte{"releases/example/releases.yaml": []byte(latest + "\n")})
	rel := e.MustCLI(0, "stack", "releases", "example")
	assert.Contains(t, rel.Stdout, "channel stable: 1.1.0")
}
