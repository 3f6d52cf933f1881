package testsuite

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/cli"
)

// StartAPIServer runs `slipway server` (the real command, in process) for e, trusting the OpenID
// provider at issuer for clientID, and returns its URL; it stops with the test.
func (e *Env) StartAPIServer(t *testing.T, issuer, clientID string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb strings.Builder
	done := make(chan int, 1)
	go func() {
		defer pw.Close()
		done <- cli.Main(ctx, []string{"--task-queue", e.TaskQueue, "server", "--listen", "127.0.0.1:0",
			"--issuer", issuer, "--client-id", clientID, "--state-dir", e.StateDir, "--shutdown-grace", "5s"},
			cli.Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
	}()
	t.Cleanup(func() {
		cancel()
		require.Equal(t, 0, <-done, "slipway server: %s", errb.String())
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	require.NoError(t, err, "slipway server printed no address: %s", errb.String())
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	url, _, ok := strings.Cut(strings.TrimPrefix(line, "slipway server on "), " ")
	require.True(t, ok, line)
	return url
}
