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
// creates acme/old pinned to web@stable through the server: it must render 1.1.0 (or be refused),
// never the channel as it was before the platform moved it.
func TestAttackReplayedReleasesFileMovesAChannelBack(t *testing.T) {
	t.Skip("known: a tenant's commit can restore an earlier releases file slipway sealed (channels and default as they were); the seal binds no freshness — protect releases/ as stacks/, or record the file's hash where only slipway writes")
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
	e.MustCLI(0, "stack", "channel", "example", "stable", "1.1.0")

	testsuite.PushFiles(t, e.GitOpsRepo, "releases: as they were", map[string][]byte{"releases/example/releases.yaml": []byte(old + "\n")})
	t.Setenv("SLIPWAY_TOKEN", alice)
	r := e.CLI("--server", url, "create", "acme/old", "-f", writeFile(t, "stack: example@stable\nparameters:\n  greeting: hi\n"), "--wait")
	rendered, _ := exec.Command("git", "-C", e.GitOpsRepo, "show", "main:instances/acme/old/manifests/app.yaml").CombinedOutput()
	if r.Code == 0 {
		assert.Contains(t, string(rendered), "marker: one-one", "stable renders 1.1.0, where the platform last pointed it: %s", r.Stdout)
	}
}
