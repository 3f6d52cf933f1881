package app

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func validConfig(t *testing.T) {
	t.Setenv("SLIPWAY_GITOPS_REPO", "/tmp/gitops")
	t.Setenv("SLIPWAY_STATE_DIR", "/tmp/state")
	t.Setenv("SLIPWAY_DEPLOYER", "none")
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
