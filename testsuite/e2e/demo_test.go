package e2e

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/cli"
	"github.com/slipway-dev/slipway/testsuite"
)

// `slipway demo` reusing a running server (TEMPORAL_ADDRESS) completes every step.
func TestDemoOnRunningServer(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", testsuite.Address(t))
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), []string{"demo", "--task-queue", "test-demo"},
		cli.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	require.Contains(t, out.String(), "8. deprovision")
	require.Contains(t, out.String(), "demo passed: 8 operations")
}
