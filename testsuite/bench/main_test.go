package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/examples"
)

func TestBadFlagsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		rows, lifecycles, idle, sticky, workers string
		rollout, metrics                        int
		flag                                    string
	}{
		{"floor,speed", "10", "10", "10", "1", 1, 1, "rows"},
		{"floor", "10,x", "10", "10", "1", 1, 1, "lifecycles"},
		{"floor", "10", "0", "10", "1", 1, 1, "idle"},
		{"floor", "10", "10", "-1", "1", 1, 1, "sticky"},
		{"floor", "10", "10", "10", "", 1, 1, "cluster-workers"},
		{"rollout", "10", "10", "10", "1", 0, 1, "rollout"},
		{"metrics", "10", "10", "10", "1", 1, 0, "metrics"},
	} {
		var o options
		o.steps, o.runs, o.workerSticky, o.rollout, o.metrics = 1, 1, 1, tc.rollout, tc.metrics
		err := o.parse(tc.rows, tc.lifecycles, tc.idle, tc.sticky, tc.workers)
		var fe *flagError
		require.ErrorAs(t, err, &fe, tc.flag)
		assert.Equal(t, tc.flag, fe.flag)
	}
	var o options
	o.steps, o.runs, o.workerSticky, o.rollout, o.metrics = 20, 10, 2000, 1000, 1000
	require.NoError(t, o.parse("floor,idle,rollout", "10,100", "1000", "10000,2000", "1,3"))
	assert.Equal(t, []int{10, 100}, o.lifecycles)
	assert.True(t, o.want("idle"))
	assert.True(t, o.want("rollout"))
	assert.False(t, o.want("update"))
}

func TestReleaseRowsRunOnlyWhenNamed(t *testing.T) {
	assert.NotContains(t, allRows, "preview", "the default -rows")
	assert.NotContains(t, allRows, "preview-real", "the default -rows")
	assert.NotContains(t, allRows, "release-rollout", "the default -rows")
	assert.NotContains(t, allRows, "idle-timed", "the default -rows")
	var o options
	o.steps, o.runs, o.workerSticky, o.rollout, o.metrics, o.preview, o.releaseRollout = 1, 1, 1, 1, 1, 1000, 0
	var fe *flagError
	require.ErrorAs(t, o.parse("preview,release-rollout", "10", "10", "10", "1"), &fe)
	assert.Equal(t, "release-rollout", fe.flag)
	o = options{steps: 1, runs: 1, workerSticky: 1, rollout: 1, metrics: 1, preview: 1000, releaseRollout: 1000}
	require.ErrorAs(t, o.parse("preview-real", "10", "10", "10", "1"), &fe)
	assert.Equal(t, "preview-real", fe.flag)
	o = options{steps: 1, runs: 1, workerSticky: 1, rollout: 1, metrics: 1, preview: 1000, releaseRollout: 1000, previewReal: 50}
	require.NoError(t, o.parse("preview,preview-real,release-rollout", "10", "10", "10", "1"))
	assert.True(t, o.want("preview-real"))
	assert.True(t, o.want("preview"))
	assert.True(t, o.want("release-rollout"))
}

func TestGrowthSaysWhenCostPerLifecycleGrows(t *testing.T) {
	small := row{Figures: map[string]float64{"lifecycles": 10, "wallS": 1, "workerCpuMsPerLifecycle": 50, "serverCpuMsPerLifecycle": 200}}
	flat := row{Figures: map[string]float64{"lifecycles": 1000, "wallS": 110, "workerCpuMsPerLifecycle": 55, "serverCpuMsPerLifecycle": 210}}
	steep := row{Figures: map[string]float64{"lifecycles": 1000, "wallS": 400, "workerCpuMsPerLifecycle": 60, "serverCpuMsPerLifecycle": 600}}
	assert.Contains(t, growth(small, flat).Text, "linear from")
	assert.NotContains(t, growth(small, flat).Text, "worse")
	assert.Contains(t, growth(small, steep).Text, "worse than linear")
	assert.InDelta(t, 4.0, growth(small, steep).Figures["wallPerLifecycleRatio"], 1e-9)
	assert.InDelta(t, 3.0, growth(small, steep).Figures["serverCpuPerLifecycleRatio"], 1e-9)
}

func TestReleaseOneOneChangesTheExampleTerraform(t *testing.T) {
	files, err := examples.StackFiles("example")
	require.NoError(t, err)
	next, err := exampleNext(files["terraform/main.tf.tmpl"])
	require.NoError(t, err, "the example stack's template changed: move the anchor")
	assert.Contains(t, string(next), `tier     = "standard"`)
	assert.Contains(t, string(next), `resource "terraform_data" "scaler"`)
	_, err = exampleNext([]byte("resource \"terraform_data\" \"app\" {}\n"))
	assert.ErrorContains(t, err, "main.tf.tmpl")
}

func TestScaleRowsRunOnlyWhenNamed(t *testing.T) {
	assert.NotContains(t, allRows, "rollout-scale", "the default -rows")
	assert.NotContains(t, allRows, "drift-scale", "the default -rows")
	for _, row := range []string{"rollout-scale", "drift-scale"} {
		o := options{steps: 1, runs: 1, workerSticky: 1, rollout: 1, metrics: 1}
		var fe *flagError
		require.ErrorAs(t, o.parse(row, "10", "10", "10", "1"), &fe)
		assert.Equal(t, row, fe.flag)
	}
	o := options{steps: 1, runs: 1, workerSticky: 1, rollout: 1, metrics: 1, rolloutScale: 10000, driftScale: 10000}
	require.NoError(t, o.parse("rollout-scale,drift-scale", "10", "10", "10", "1"))
	assert.True(t, o.want("drift-scale"))
	_, err := fleetSeed("scale")
	var fe *flagError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "fleet", fe.flag)
}
