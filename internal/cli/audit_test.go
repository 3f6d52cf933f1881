package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                     {},
		"24h":                  now.Add(-24 * time.Hour),
		"90m":                  now.Add(-90 * time.Minute),
		"2026-11-24T10:00:00Z": time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC),
	} {
		got, err := parseSince(in, now)
		require.NoError(t, err, in)
		require.True(t, want.Equal(got), "%q: %s, want %s", in, got, want)
	}
}

// Bad --since and --tenant are refused (exit 2) naming the flag, before Temporal is dialled.
func TestAuditBadInput(t *testing.T) {
	for _, tc := range []struct{ args []string }{
		{[]string{"audit", "--since", "yesterday"}},
		{[]string{"audit", "--since", "-1h"}},
		{[]string{"audit", "--tenant", "Acme"}},
	} {
		code, msg := runServerCLI(t, tc.args...)
		require.Equal(t, ExitUsage, code, "%v: %s", tc.args, msg)
		require.Contains(t, msg, tc.args[1])
	}
}
