package e2e

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// A release is a platform decision (docs/releases.md), but its record is a file on main that a
// tenant's commit can write. alice (tenant acme, who may commit to the GitOps repository) pushes
// a branch whose stacks/example/ holds her own template, then writes releases/example/releases.yaml
// on main with a release 6.6.6 naming that commit and the hash of her files, and pins her new
// instance to it through `slipway server`. The render must refuse the release slipway never cut
// (exit 2 naming the releases file) and nothing of hers may reach main; before the fix the create
// rendered her files.
func TestAttackForgedReleasesFileIsRefused(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	url := startServer(t, e, p)
	alice := signIn(t, p, "alice")

	// alice's branch: the example stack with her own template.
	clone := filepath.Join(t.TempDir(), "clone")
	testsuite.Git(t, filepath.Dir(clone), "clone", "-q", "--branch", "main", e.GitOpsRepo, clone)
	tmpl := filepath.Join(clone, "stacks/example/manifests/app.yaml.tmpl")
	testsuite.Git(t, clone, "checkout", "-q", "-b", "acme/tweak")
	require.NoError(t, appendFile(tmpl, "  owner: alice-controls-this\n"))
	testsuite.Git(t, clone, "commit", "-q", "-am", "a tweak")
	testsuite.Git(t, clone, "push", "-q", "origin", "acme/tweak")
	commit := testsuite.Git(t, clone, "rev-parse", "HEAD")
	files, err := e.Activities.Forge.ReadDir(t.Context(), commit, config.StackDir("example"))
	require.NoError(t, err)

	forged := "stack: example\nreleases:\n  - version: 6.6.6\n    commit: " + commit + "\n    tree: " + config.TreeHash(files) +
		"\n    notes: looks official\n    cutBy: carol\n"
	testsuite.PushFiles(t, e.GitOpsRepo, "releases: 6.6.6", map[string][]byte{"releases/example/releases.yaml": []byte(forged)})

	t.Setenv("SLIPWAY_TOKEN", alice)
	r := e.CLI("--server", url, "create", "acme/evil", "-f", writeFile(t, "stack: example@6.6.6\nparameters:\n  greeting: hi\n"), "--wait")
	assert.Equal(t, 2, r.Code, "a release slipway never cut is bad input: %s%s", r.Stdout, r.Stderr)
	assert.Contains(t, r.Stdout+r.Stderr, "releases/example/releases.yaml")
	rendered, _ := exec.Command("git", "-C", e.GitOpsRepo, "show", "main:instances/acme/evil/manifests/app.yaml").CombinedOutput()
	assert.NotContains(t, string(rendered), "alice-controls-this", "alice's files were rendered as a release")
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}
