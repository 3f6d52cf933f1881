package workerapp

import (
	"fmt"
	"os"
	"strconv"

	"github.com/slipway-dev/slipway/internal/forge/github"
)

// GitHubApp is a GitHub App installation the github forge acts as instead of a token
// (SLIPWAY_GITHUB_APP_ID, SLIPWAY_GITHUB_APP_KEY_FILE, SLIPWAY_GITHUB_APP_INSTALLATION_ID).
type GitHubApp struct {
	ID, KeyFile, InstallationID string
}

func (a GitHubApp) set() bool { return a.ID != "" || a.KeyFile != "" || a.InstallationID != "" }

func gitHubAppFromEnv() GitHubApp {
	return GitHubApp{ID: os.Getenv(github.AppIDVar), KeyFile: os.Getenv(github.AppKeyFileVar),
		InstallationID: os.Getenv(github.AppInstallationVar)}
}

// validateGitHubApp refuses partial or conflicting GitHub App settings, naming the variable.
func (c Config) validateGitHubApp() error {
	a := c.Forge.App
	if !a.set() {
		return nil
	}
	if c.forgeKind() != "github" {
		return fmt.Errorf("%s: a GitHub App authenticates SLIPWAY_FORGE=github only, not %s", github.AppIDVar, c.forgeKind())
	}
	for _, v := range []struct{ name, value string }{{github.AppIDVar, a.ID}, {github.AppKeyFileVar, a.KeyFile},
		{github.AppInstallationVar, a.InstallationID}} {
		if v.value == "" {
			return fmt.Errorf("%s: set it too: a GitHub App needs %s, %s and %s", v.name, github.AppIDVar, github.AppKeyFileVar, github.AppInstallationVar)
		}
	}
	if c.Forge.Token != "" {
		return fmt.Errorf("SLIPWAY_FORGE_TOKEN (or %s) and %s: set a token or a GitHub App, not both", github.TokenVar, github.AppIDVar)
	}
	if _, err := a.ids(); err != nil {
		return err
	}
	return nil
}

// ids parses the app and installation IDs.
func (a GitHubApp) ids() ([2]int64, error) {
	var out [2]int64
	for i, v := range []struct{ name, value string }{{github.AppIDVar, a.ID}, {github.AppInstallationVar, a.InstallationID}} {
		n, err := strconv.ParseInt(v.value, 10, 64)
		if err != nil || n <= 0 {
			return out, fmt.Errorf("%s: %q is not a positive number (GitHub shows it on the app's settings page)", v.name, v.value)
		}
		out[i] = n
	}
	return out, nil
}

// option reads the app's key file and returns the forge option that authenticates as it.
func (a GitHubApp) option() (github.Option, error) {
	ids, err := a.ids()
	if err != nil {
		return nil, err
	}
	key, err := os.ReadFile(a.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", github.AppKeyFileVar, err)
	}
	return github.WithApp(ids[0], ids[1], key), nil
}
