package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/app"
	"github.com/slipway-dev/slipway/internal/devenv"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

// A worker that acts as a GitHub App installation (no token) runs a lifecycle on the GitHub
// fake: each call carries an installation token got with the app's JWT, and as each token is
// issued for less than the minute ghinstallation keeps in hand, every call fetches a new one.
func TestGitHubAppRunsTheLifecycle(t *testing.T) {
	fake := fakegithub.New(t)
	fake.AddRepo("acme", "gitops", "main")
	gh := fake.AddApp(t)
	fake.SetInstallationTokenTTL(30 * time.Second)
	fake.CommitFiles("acme", "gitops", "main", "the example stack", seedExample(t))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Forge = app.Forge{Kind: "github", URL: fake.URL, Repo: "acme/gitops",
			App: app.GitHubApp{ID: fmt.Sprint(gh.ID), KeyFile: gh.KeyFile, InstallationID: fmt.Sprint(gh.InstallationID)}}
	})
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	e.MustCLI(0, "create", "acme/web", "-f", file, "--wait")
	e.MustCLI(0, "deploy", "acme/web", "--wait")
	merges := fake.Calls("PUT /repos/{owner}/{repo}/pulls/{number}/merge")
	e.MustCLI(0, "deprovision", "acme/web", "--yes", "--wait")
	require.Greater(t, fake.Calls("PUT /repos/{owner}/{repo}/pulls/{number}/merge"), merges, "deprovision merged its change too")
	tokens := fake.InstallationTokensIssued()
	require.Greater(t, tokens, 2, "tokens were refreshed as they neared their expiry")
	t.Logf("installation tokens issued over the lifecycle: %d", tokens)
}
