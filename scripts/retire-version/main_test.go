package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Bad input names the argument; good input prints the query, or the steps with the histories to delete.
func TestRetireVersionArguments(t *testing.T) {
	var out strings.Builder
	require.ErrorContains(t, run(&out, []string{"steps", "no-such-change"}), `CHANGE-ID "no-such-change" is not in workflows.Changes`)
	require.ErrorContains(t, run(&out, []string{"steps", "stack-budgets", "1"}), `VERSION "1": want -1 (DefaultVersion)`)
	require.ErrorContains(t, run(&out, []string{"list", "stack-budgets"}), "usage")
	require.Empty(t, out.String())

	require.NoError(t, run(&out, []string{"query", "render-provenance", "1"}))
	require.Contains(t, out.String(), `NOT (TemporalChangeVersion IN ("render-provenance-2", "verified-requests-4", "verified-requests-5", "verified-requests-6", "verified-requests-7"))`)
	out.Reset()
	require.NoError(t, run(&out, []string{"steps", "secrets-bootstrap"}))
	require.Contains(t, out.String(), "minSupported 1")
	require.Contains(t, out.String(), "git rm -r testsuite/histories/lifecycle-v0\n")
	out.Reset()
	require.NoError(t, run(&out, []string{"steps", "stack-budgets"}))
	require.Contains(t, out.String(), "No committed history pins these branches")
}
