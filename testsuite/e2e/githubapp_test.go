package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/workerapp"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

// A worker that acts as a GitHub App installation (no token) runs a lifecycle on the GitHub
// fake, through a forge that answers its first merges 500 (shown as Retrying): each call carries an installation token got with the app's JWT, and as each token is
// issued for less than the minute ghinstallation keeps in hand, every call fetches a new one.
func TestGitHubAppRunsTheLifecycle(t *testing.T) {
	fake := fakegithub.New(t)
	fake.AddRepo("acme", "gitops", "main")
	gh := fake.AddApp(t)
	fake.SetInstallationTokenTTL(30 * time.Second)
	fake.CommitFiles("acme", "gitops", "main", "the example stack", seedExample(t))
	e := testsuite.NewEnv(t, func(o *devenv.EnvOptions) {
		o.Forge = workerapp.Forge{Kind: "github", URL: fake.URL, Repo: "acme/gitops",
			App: workerapp.GitHubApp{ID: fmt.Sprint(gh.ID), KeyFile: gh.KeyFile, InstallationID: fmt.Sprint(gh.InstallationID)}}
	})
	file := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n")
	// The forge answers the first two merges 500: the step shows Retrying, with GitHub's answer,
	// from its second attempt, and the third merges.
	fake.FailNextMerges(http.StatusInternalServerError, http.StatusInternalServerError)
	e.MustCLI(0, "create", "acme/web", "-f", file)
	var retrying *contract.StepRetry
	require.Eventually(t, func() bool {
		// Another step may retry too on a loaded machine (CI saw open-mr's): the merge's is the one asked for.
		if op := e.Status("acme/web").Operation; op != nil && op.Retrying != nil && op.Retrying.Step == contract.MergeMR {
			retrying = op.Retrying
		}
		return retrying != nil
	}, 30*time.Second, 50*time.Millisecond, "the merge answered 500 never showed as retrying")
	require.Equal(t, contract.MergeMR, retrying.Step)
	require.GreaterOrEqual(t, retrying.Attempt, 2)
	require.Contains(t, retrying.LastError, "500")
	require.Eventually(t, func() bool { return e.Status("acme/web").State == lifecycle.ConfigurationCreated },
		30*time.Second, 100*time.Millisecond, "the merge never went through once the forge answered")
	e.MustCLI(0, "deploy", "acme/web", "--wait")
	merges := fake.Calls("PUT /repos/{owner}/{repo}/pulls/{number}/merge")
	e.MustCLI(0, "deprovision", "acme/web", "--yes", "--wait")
	require.Greater(t, fake.Calls("PUT /repos/{owner}/{repo}/pulls/{number}/merge"), merges, "deprovision merged its change too")
	tokens := fake.InstallationTokensIssued()
	require.Greater(t, tokens, 2, "tokens were refreshed as they neared their expiry")
	t.Logf("installation tokens issued over the lifecycle: %d", tokens)
}

// The worker binary given only part of a GitHub App's settings refuses to start, naming the
// variable that is missing, and never asks the fake for a token or touches the repository.
func TestWorkerRefusesPartialGitHubAppSettings(t *testing.T) {
	fake := fakegithub.New(t)
	fake.AddRepo("acme", "gitops", "main")
	gh := fake.AddApp(t)
	e := testsuite.NewEnv(t)
	bin := buildWorker(t)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLIPWAY_GITHUB_") && !strings.HasPrefix(kv, "SLIPWAY_FORGE") {
			env = append(env, kv)
		}
	}
	env = append(env, "TEMPORAL_ADDRESS="+e.Address, "SLIPWAY_TASK_QUEUE="+e.TaskQueue, "SLIPWAY_STATE_DIR="+t.TempDir(),
		"SLIPWAY_DEPLOYER=none", "SLIPWAY_FORGE=github", "SLIPWAY_FORGE_URL="+fake.URL, "SLIPWAY_FORGE_REPO=acme/gitops",
		"SLIPWAY_GITHUB_APP_ID="+fmt.Sprint(gh.ID), "SLIPWAY_GITHUB_APP_INSTALLATION_ID="+fmt.Sprint(gh.InstallationID))
	for _, tc := range []struct{ extra, want string }{
		{"", "SLIPWAY_GITHUB_APP_KEY_FILE: set it too"},
		{"SLIPWAY_GITHUB_APP_KEY_FILE=" + gh.KeyFile + "\x00SLIPWAY_GITHUB_TOKEN=ghp_x", "set a token or a GitHub App, not both"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a worker that started would run until killed
		cmd := exec.CommandContext(ctx, bin)
		cmd.Env = env
		if tc.extra != "" {
			cmd.Env = append(slices.Clone(env), strings.Split(tc.extra, "\x00")...)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		var exit *exec.ExitError
		require.True(t, errors.As(err, &exit), "the worker stopped by itself: %v\n%s", err, stderr.String())
		require.Equal(t, 1, exit.ExitCode(), stderr.String())
		require.Contains(t, stderr.String(), tc.want)
	}
	require.Zero(t, fake.InstallationTokensIssued(), "no token was asked for")
	require.Zero(t, fake.Calls("GET /repos/{owner}/{repo}/git/ref/{ref...}"), "nor the repository read")
}
