package workerapp

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

func TestGitHubAppSettingsNameTheVariable(t *testing.T) {
	full := map[string]string{"SLIPWAY_FORGE": "github", "SLIPWAY_FORGE_REPO": "acme/gitops",
		"SLIPWAY_GITHUB_APP_ID": "12", "SLIPWAY_GITHUB_APP_KEY_FILE": "/etc/slipway/app.pem", "SLIPWAY_GITHUB_APP_INSTALLATION_ID": "34"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range full {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		err  string
	}{
		{"complete", full, ""},
		{"a PAT alone", map[string]string{"SLIPWAY_FORGE": "github", "SLIPWAY_GITHUB_TOKEN": "ghp_x"}, ""},
		{"no key file", with("SLIPWAY_GITHUB_APP_KEY_FILE", ""), "SLIPWAY_GITHUB_APP_KEY_FILE: set it too"},
		{"no installation", with("SLIPWAY_GITHUB_APP_INSTALLATION_ID", ""), "SLIPWAY_GITHUB_APP_INSTALLATION_ID: set it too"},
		{"key file alone", map[string]string{"SLIPWAY_FORGE": "github", "SLIPWAY_GITHUB_APP_KEY_FILE": "/k.pem"}, "SLIPWAY_GITHUB_APP_ID: set it too"},
		{"app and PAT", with("SLIPWAY_GITHUB_TOKEN", "ghp_x"), "SLIPWAY_GITHUB_APP_ID: set a token or a GitHub App, not both"},
		{"app and forge token", with("SLIPWAY_FORGE_TOKEN", "ghp_x"), "not both"},
		{"app ID not a number", with("SLIPWAY_GITHUB_APP_ID", "my-app"), `SLIPWAY_GITHUB_APP_ID: "my-app" is not a positive number`},
		{"installation ID zero", with("SLIPWAY_GITHUB_APP_INSTALLATION_ID", "0"), `SLIPWAY_GITHUB_APP_INSTALLATION_ID: "0" is not a positive number`},
		{"another forge", with("SLIPWAY_FORGE", "gitlab"), "SLIPWAY_GITHUB_APP_ID: a GitHub App authenticates SLIPWAY_FORGE=github only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validConfig(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			err := FromEnv().Validate()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// The worker's forge built from the environment authenticates as the app's installation on
// the GitHub fake; a key file that cannot be read stops it at start, naming the variable.
func TestForgeFromEnvActsAsTheGitHubApp(t *testing.T) {
	srv := fakegithub.New(t)
	head := srv.AddRepo("acme", "gitops", "main")
	app := srv.AddApp(t)
	validConfig(t)
	for k, v := range map[string]string{"SLIPWAY_FORGE": "github", "SLIPWAY_FORGE_URL": srv.URL, "SLIPWAY_FORGE_REPO": "acme/gitops",
		"SLIPWAY_GITHUB_APP_ID": fmt.Sprint(app.ID), "SLIPWAY_GITHUB_APP_KEY_FILE": app.KeyFile,
		"SLIPWAY_GITHUB_APP_INSTALLATION_ID": fmt.Sprint(app.InstallationID)} {
		t.Setenv(k, v)
	}
	cfg := FromEnv()
	require.NoError(t, cfg.Validate())
	fg, err := NewForge(cfg)
	require.NoError(t, err)
	got, err := fg.Head(context.Background())
	require.NoError(t, err)
	assert.Equal(t, head, got)
	assert.Equal(t, 1, srv.InstallationTokensIssued())

	t.Setenv("SLIPWAY_GITHUB_APP_KEY_FILE", filepath.Join(t.TempDir(), "missing.pem"))
	_, err = NewForge(FromEnv())
	require.ErrorContains(t, err, "SLIPWAY_GITHUB_APP_KEY_FILE: open ")
}
