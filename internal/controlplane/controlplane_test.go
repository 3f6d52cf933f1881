package controlplane

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var pair = []Pool{
	{Name: "observability", Self: "platform/observability", TaskQueue: "slipway@observability"},
	{Name: "edp", Self: "platform/edp", TaskQueue: "slipway@edp"},
}

func TestAdmit(t *testing.T) {
	for _, tc := range []struct {
		name, ref, op, pool, err string
	}{
		{"each manages the other", "platform/edp", "deploy", "observability", ""},
		{"the other way", "platform/observability", "destroy", "edp", ""},
		{"a plan changes nothing", "platform/edp", "plan", "edp", ""},
		{"a provision only writes config", "platform/edp", "provision", "edp", ""},
		{"self-update", "platform/edp", "deploy", "edp", "platform/edp is the instance the edp pool runs on: a deploy would take that pool down mid-pipeline; run it from another pool: set controlPlane: observability"},
		{"self-archive", "platform/edp", "archive", "edp", "run it from another pool: set controlPlane: observability"},
		{"unknown pool", "acme/web", "deploy", "edpp", `unknown control plane "edpp": no worker pool of that name has registered (start one with SLIPWAY_CONTROL_PLANE=edpp); known: edp, observability`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Admit(tc.ref, tc.op, tc.pool, pair)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
	err := Admit("platform/edp", "deploy", "edp", pair[1:])
	assert.ErrorContains(t, err, "no other pool is registered to run it")
	assert.ErrorContains(t, Admit("x/y", "deploy", "edp", nil), "known: none")
}

func TestNamesAndQueues(t *testing.T) {
	assert.NoError(t, Check("observability"))
	assert.Error(t, Check("Edp"))
	assert.Error(t, Check("edp_1"))
	assert.Equal(t, "slipway@edp", TaskQueue("slipway", "edp"))
	assert.Equal(t, "slipway", TaskQueue("slipway", ""))
}
