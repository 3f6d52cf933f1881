package cli

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func runServerCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, errb.String()
}

// --server sends changes to `slipway server`: a malformed URL is bad input (2); no sign-in is a
// refusal that says what to run (3); a server that does not answer is a failure naming it (1).
// Each is decided before anything is sent anywhere.
func TestServerFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no cached sign-in
	t.Setenv("SLIPWAY_TOKEN", "")
	code, msg := runServerCLI(t, "--server", "127.0.0.1:8090", "deploy", "acme/web")
	require.Equal(t, ExitUsage, code, msg)
	require.Contains(t, msg, "--server")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	code, msg = runServerCLI(t, "--server", closed, "deploy", "acme/web")
	require.Equal(t, ExitRefused, code, msg)
	require.Contains(t, msg, "slipway login")

	t.Setenv("SLIPWAY_TOKEN", "a-token")
	code, msg = runServerCLI(t, "--server", closed, "approve", "acme/web", "--plan", "abcdef0")
	require.Equal(t, ExitFailed, code, msg)
	require.Contains(t, msg, "cannot reach the slipway server at "+closed)
}

// Without --server and without slipway's key, a change is refused before anything is dialled,
// saying how to send it instead; reads still go straight to Temporal.
func TestNoKeyNoServerSaysWhatToDo(t *testing.T) {
	t.Setenv("SLIPWAY_ATTEST_KEY", "")
	t.Setenv("SLIPWAY_ATTEST_KEY_FILE", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // no dev key either
	t.Setenv("HOME", t.TempDir())
	t.Setenv("SLIPWAY_SERVER", "")
	for _, args := range [][]string{
		{"deploy", "acme/web"},
		{"approve", "acme/web", "--plan", "abcdef0"},
		{"retry", "acme/web"},
		{"gate", "add", "acme/web", "freeze"},
	} {
		code, msg := runServerCLI(t, args...)
		require.Equal(t, ExitRefused, code, "%v: %s", args, msg)
		require.Contains(t, msg, "slipway login")
		require.Contains(t, msg, "--server")
	}
}

// slipway server refuses to start on bad settings, naming them, before it listens: no issuer,
// plain HTTP beyond loopback (bearer tokens would cross the network in clear), no slipway key.
func TestServerCommandBadSettings(t *testing.T) {
	t.Setenv("SLIPWAY_OIDC_ISSUER", "")
	t.Setenv("SLIPWAY_ATTEST_KEY", "")
	t.Setenv("SLIPWAY_ATTEST_KEY_FILE", "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"server"}, "--issuer"},
		{[]string{"server", "--issuer", "http://127.0.0.1:1", "--listen", "0.0.0.0:8090"}, "--tls-cert"},
		{[]string{"server", "--issuer", "http://127.0.0.1:1", "--listen", "nowhere"}, "--listen"},
		{[]string{"server", "--issuer", "http://127.0.0.1:1", "--listen", "127.0.0.1:0"}, "SLIPWAY_ATTEST_KEY"},
	} {
		code, msg := runServerCLI(t, tc.args...)
		require.Equal(t, ExitUsage, code, "%v: %s", tc.args, msg)
		require.Contains(t, msg, tc.want, "%v", tc.args)
	}
}
