package workerapp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/workflows"
)

func TestStopGracesDefaultAndAreReadFromTheEnvironment(t *testing.T) {
	validConfig(t)
	s, err := FromEnv().StopSettings()
	require.NoError(t, err)
	assert.Equal(t, 5*time.Minute, s.Grace)
	assert.Equal(t, 30*time.Second, s.TerraformGrace)

	t.Setenv(EnvWorkerGrace, "90s")
	t.Setenv(EnvTerraformStopGrace, "1m")
	cfg := FromEnv()
	require.NoError(t, cfg.Validate())
	s, err = cfg.StopSettings()
	require.NoError(t, err)
	assert.Equal(t, 90*time.Second, s.Grace)
	assert.Equal(t, time.Minute, s.TerraformGrace)
}

func TestBadStopGraceNamesTheVariable(t *testing.T) {
	for _, key := range []string{EnvWorkerGrace, EnvTerraformStopGrace} {
		for _, v := range []string{"0s", "-5m", "300", "soon"} {
			t.Run(key+"="+v, func(t *testing.T) {
				validConfig(t)
				t.Setenv(key, v)
				cfg := FromEnv()
				_, err := cfg.StopSettings()
				require.Error(t, err)
				assert.Contains(t, err.Error(), key)
				assert.Contains(t, err.Error(), v)
				require.Error(t, cfg.Validate(), "NewActivities refuses it too")
			})
		}
	}
}

func TestTerraformStopGraceLongerThanABudgetsMarginStopsTheWorker(t *testing.T) {
	// The longest grace allowed still lets an interrupted terraform end before Temporal's timeout.
	require.Less(t, stopTakes(MaxTerraformStopGrace), workflows.BudgetMargin)

	validConfig(t)
	t.Setenv(EnvTerraformStopGrace, MaxTerraformStopGrace.String())
	require.NoError(t, FromEnv().Validate())

	t.Setenv(EnvTerraformStopGrace, "61s")
	err := FromEnv().Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvTerraformStopGrace)
	assert.Contains(t, err.Error(), "schema.timeouts")
	assert.Contains(t, err.Error(), "use at most 1m0s")
}
