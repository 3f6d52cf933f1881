package logging

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestTemporalAdapterKeepsFieldsAndLevels(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	l := NewTemporal(zap.New(core)).With("instance", "acme/web")
	l.Info("state", "to", "Deployed")
	l.Warn("slow")
	entries := logs.All()
	require.Len(t, entries, 2)
	require.Equal(t, "state", entries[0].Message)
	require.Equal(t, map[string]any{"instance": "acme/web", "to": "Deployed"}, entries[0].ContextMap())
	require.Equal(t, zap.WarnLevel, entries[1].Level)
}

func TestNewRejectsBadLevel(t *testing.T) {
	_, err := New("loud")
	require.Error(t, err)
}

func TestFormatFromEnv(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	for _, c := range []struct {
		value    string
		terminal bool
		want     string
	}{{"", true, FormatConsole}, {"", false, FormatJSON}, {"json", true, FormatJSON}, {"console", false, FormatConsole}} {
		got, err := FormatFromEnv(env(c.value), c.terminal)
		require.NoError(t, err)
		require.Equal(t, c.want, got, "%q on a terminal: %v", c.value, c.terminal)
	}
	_, err := FormatFromEnv(env("yaml"), false)
	require.ErrorContains(t, err, `SLIPWAY_LOG_FORMAT="yaml"`)
	t.Setenv(EnvFormat, "text")
	_, err = New("info")
	require.ErrorContains(t, err, EnvFormat, "the worker and servers refuse to start naming the variable")
}

func TestJSONLinesCarryTheOperation(t *testing.T) {
	var buf bytes.Buffer
	z, err := NewTo(zapcore.AddSync(&buf), "debug", FormatJSON)
	require.NoError(t, err)
	l := NewTemporal(z)
	// As the SDK builds an activity's logger, then a line of slipway's naming the instance again.
	act := log.With(l, "ActivityID", "5", "ActivityType", "TerraformApply", "WorkflowID", "instance/acme/web/deploy-0f3a-77/attempt-2")
	act.Info("applied", "instance", "acme/web")
	// The SDK's own lines pass the workflow ID with the message.
	l.Warn("Task processing failed", "WorkflowID", "instance/acme/web", "Error", "boom")
	l.Info("unrelated", "WorkflowID", "rollout/r1")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3)
	var first, second, third map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &second))
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &third))
	require.Equal(t, "acme/web", first["instance"])
	require.Equal(t, "deploy", first["operation"])
	require.Equal(t, "0f3a-77", first["operationID"])
	require.Equal(t, "tf-apply", first["step"])
	require.Equal(t, 1, strings.Count(lines[0], `"instance"`), "no repeated key: %s", lines[0])
	require.Equal(t, "acme/web", second["instance"])
	require.NotContains(t, second, "operation")
	require.NotContains(t, third, "instance")
	require.Contains(t, first, "ts")
}
