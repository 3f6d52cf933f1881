package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTelemetrySettingsAreCheckedBeforeAnythingStarts(t *testing.T) {
	t.Setenv(envTelemetryAddr, "")
	tel, err := newTelemetry()
	require.NoError(t, err)
	require.Nil(t, tel.metrics, "unset: no listener and no metrics")
	require.Empty(t, tel.clientOptions())

	for _, bad := range []struct{ addr, interval, names string }{
		{"9090", "", envTelemetryAddr},
		{"0.0.0.0:9090", "soon", envFleetInterval},
		{"0.0.0.0:9090", "10ms", envFleetInterval},
	} {
		t.Setenv(envTelemetryAddr, bad.addr)
		t.Setenv(envFleetInterval, bad.interval)
		_, err := newTelemetry()
		require.ErrorContains(t, err, bad.names, "%+v", bad)
	}
	t.Setenv(envTelemetryAddr, "127.0.0.1:0")
	t.Setenv(envFleetInterval, "5s")
	tel, err = newTelemetry()
	require.NoError(t, err)
	require.Len(t, tel.clientOptions(), 1)
}
