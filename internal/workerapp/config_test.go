package workerapp

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
)

func validConfig(t *testing.T) {
	t.Setenv("SLIPWAY_GITOPS_REPO", "/tmp/gitops")
	t.Setenv("SLIPWAY_STATE_DIR", "/tmp/state")
	t.Setenv("SLIPWAY_DEPLOYER", "none")
	key, err := attest.Generate()
	require.NoError(t, err)
	t.Setenv(attest.EnvKey, key) // the activities seal the releases files with it
}

func TestStickyCacheDefaultsAndIsReadFromTheEnvironment(t *testing.T) {
	validConfig(t)
	cfg := FromEnv()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, DefaultStickyCache, cfg.stickyCache())

	t.Setenv("SLIPWAY_STICKY_CACHE", "500")
	cfg = FromEnv()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, 500, cfg.stickyCache())
}

func TestBadStickyCacheNamesTheVariable(t *testing.T) {
	validConfig(t)
	for _, v := range []string{"0", "-3", "lots"} {
		t.Setenv("SLIPWAY_STICKY_CACHE", v)
		err := FromEnv().Validate()
		require.Error(t, err, v)
		assert.Contains(t, err.Error(), "SLIPWAY_STICKY_CACHE")
		assert.Contains(t, err.Error(), v)
	}
}

func TestControlPlaneSettingsNameTheVariable(t *testing.T) {
	for _, tc := range []struct {
		env map[string]string
		err string
	}{
		{map[string]string{"SLIPWAY_CONTROL_PLANE": "edp", "SLIPWAY_SELF": "platform/edp", "SLIPWAY_FORGE_MIRROR": "/srv/mirror.git"}, ""},
		{map[string]string{"SLIPWAY_CONTROL_PLANE": "EDP"}, "SLIPWAY_CONTROL_PLANE: \"EDP\" is not a worker pool name"},
		{map[string]string{"SLIPWAY_SELF": "platform/edp"}, "SLIPWAY_SELF: set SLIPWAY_CONTROL_PLANE too"},
		{map[string]string{"SLIPWAY_CONTROL_PLANE": "edp", "SLIPWAY_SELF": "platform"}, "SLIPWAY_SELF:"},
		{map[string]string{"SLIPWAY_FORGE_MIRROR": "mirror.git"}, "SLIPWAY_FORGE_MIRROR: \"mirror.git\" must be an absolute path"},
		{map[string]string{"SLIPWAY_STACKS_REPO": "stacks.git"}, "SLIPWAY_STACKS_REPO: \"stacks.git\" must be an absolute path"},
	} {
		t.Run(tc.err, func(t *testing.T) {
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

func TestStackEnvNamingASlipwayVariableStopsTheWorker(t *testing.T) {
	validConfig(t)
	for v, want := range map[string]string{
		"web=AWS_REGION,SLIPWAY_ARGOCD_TOKEN": `SLIPWAY_STACK_ENV: "SLIPWAY_ARGOCD_TOKEN"`,
		"*=PG_CONN_STR":                       `SLIPWAY_STACK_ENV: "PG_CONN_STR"`,
		"web AWS_REGION":                      `SLIPWAY_STACK_ENV: "web AWS_REGION" must be STACK=VAR`,
	} {
		t.Setenv("SLIPWAY_STACK_ENV", v)
		err := FromEnv().Validate()
		require.Error(t, err, v)
		assert.Contains(t, err.Error(), want)
	}
	t.Setenv("SLIPWAY_STACK_ENV", "web=AWS_REGION;*=HTTPS_PROXY")
	cfg := FromEnv()
	require.NoError(t, cfg.Validate())
	assert.Equal(t, []string{"AWS_REGION", "HTTPS_PROXY"}, cfg.StackEnv.Names("web"))
}

// The stacks repository opens at start, or stops the worker naming SLIPWAY_STACKS_REPO: a path
// that is not there, or not a git repository; unset, there is none.
func TestStacksRepoIsOpenedAtStartOrNamed(t *testing.T) {
	none, err := NewStacks(Config{})
	require.NoError(t, err)
	require.Nil(t, none)

	dir := t.TempDir()
	_, err = NewStacks(Config{StacksRepo: filepath.Join(dir, "missing")})
	require.ErrorContains(t, err, "SLIPWAY_STACKS_REPO: ")
	require.ErrorContains(t, err, "is not a directory")
	_, err = NewStacks(Config{StacksRepo: dir})
	require.ErrorContains(t, err, "SLIPWAY_STACKS_REPO: ")
	require.ErrorContains(t, err, "is not a git repository")

	repo := filepath.Join(dir, "stacks.git")
	_, err = localgit.Init(repo, map[string][]byte{"stacks/web/schema.yaml": []byte("parameters: []\n")})
	require.NoError(t, err)
	fg, err := NewStacks(Config{StacksRepo: repo})
	require.NoError(t, err)
	require.Equal(t, "file://"+repo, fg.RepoURL(), "the name a release records")
}
