package logging

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
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
