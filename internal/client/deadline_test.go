package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/windows"
)

// A deadline's progress counts the instances still below its minimum (main's head among them)
// and projects their waves from now: done when none is behind, the last wave's opening when all
// fit before the deadline (no window covering acme: now), the instances that would miss it when
// its windows open too late (beta: 22:00, after a deadline at 12:00).
func TestDeadlineProgress(t *testing.T) {
	ws, err := windows.Parse([]any{map[string]any{"name": "nightly", "start": "0 22 * * *", "duration": "1h", "tenants": []any{"beta"}}})
	require.NoError(t, err)
	now := time.Date(2026, 11, 28, 1, 0, 0, 0, time.UTC)
	noon := now.Add(11 * time.Hour)
	items := []ListItem{{Tenant: "acme", Name: "old", Release: "web@1.0.0"}, {Tenant: "acme", Name: "head"}, {Tenant: "acme", Name: "new", Release: "web@1.1.0"}}
	got := DeadlineProgress(ws, "web", []contract.StackDeadline{{Min: "1.0.0", By: noon}, {Min: "1.1.0", By: noon}}, items, now)
	require.Equal(t, []DeadlineStatus{
		{Min: "1.0.0", By: noon, Behind: 1, Finish: now},
		{Min: "1.1.0", By: noon, Behind: 2, Finish: now},
	}, got)
	got = DeadlineProgress(ws, "web", []contract.StackDeadline{{Min: "1.1.0", By: noon}}, append(items, ListItem{Tenant: "beta", Name: "x", Release: "web@1.0.0"}), now)
	require.Equal(t, []DeadlineStatus{{Min: "1.1.0", By: noon, Behind: 3, AtRisk: []string{"beta/x"}}}, got)
	require.Equal(t, []DeadlineStatus{{Min: "1.0.0", By: noon}}, DeadlineProgress(ws, "web", []contract.StackDeadline{{Min: "1.0.0", By: noon}}, items[2:], now))
}
