package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/httpserve/httpservetest"
)

// startCodecServer runs `slipway codec-server args...` and returns the endpoint it
// prints and a stop function that cancels it and returns its exit code.
func startCodecServer(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, append([]string{"codec-server"}, args...), Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	var url string
	for url == "" && sc.Scan() {
		if m := regexp.MustCompile(`browser endpoint: (https?://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	code, stopped := 0, false
	stop := func() int {
		if !stopped {
			cancel()
			code, stopped = <-done, true
		}
		return code
	}
	t.Cleanup(func() { stop() })
	if url == "" {
		t.Fatalf("no URL printed; exit %d; stderr: %s", stop(), errb.String())
	}
	return url, stop
}

func sealedBatch(t *testing.T, keys *codec.Keyring) []byte {
	t.Helper()
	sealed, err := codec.DataConverter(keys).ToPayload("acme/web")
	require.NoError(t, err)
	body, err := protojson.Marshal(&commonpb.Payloads{Payloads: []*commonpb.Payload{sealed}})
	require.NoError(t, err)
	return body
}

func requireDecodes(t *testing.T, resp *http.Response) {
	t.Helper()
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var ps commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(got, &ps))
	require.Equal(t, `"acme/web"`, string(ps.Payloads[0].Data))
}

func testKeys(t *testing.T) *codec.Keyring {
	t.Helper()
	line, err := codec.Generate("k1")
	require.NoError(t, err)
	t.Setenv(codec.EnvKey, line)
	t.Setenv(codec.EnvKeyFile, "")
	keys, err := codec.FromEnv()
	require.NoError(t, err)
	return keys
}

// The codec server decodes what the worker's key encoded, answers the UI's
// preflight, and stops cleanly when its context ends.
func TestCodecServerServesUntilCancelled(t *testing.T) {
	keys := testKeys(t)
	url, stop := startCodecServer(t, "--listen", "127.0.0.1:0")
	require.True(t, strings.HasPrefix(url, "http://"), url)

	resp, err := http.Post(url+"/decode", "application/json", bytes.NewReader(sealedBatch(t, keys)))
	require.NoError(t, err)
	requireDecodes(t, resp)

	req, err := http.NewRequest(http.MethodOptions, url+"/decode", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "http://localhost:8233")
	pre, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	pre.Body.Close()
	require.Equal(t, "http://localhost:8233", pre.Header.Get("Access-Control-Allow-Origin"), "the dev UI is allowed by default")

	require.Equal(t, ExitOK, stop())
}

// With --tls-cert and --tls-key it serves HTTPS and prints an https:// endpoint.
func TestCodecServerServesTLS(t *testing.T) {
	keys := testKeys(t)
	certFile, keyFile, roots := httpservetest.SelfSigned(t)
	url, stop := startCodecServer(t, "--listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	require.True(t, strings.HasPrefix(url, "https://"), url)

	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	resp, err := c.Post(url+"/decode", "application/json", bytes.NewReader(sealedBatch(t, keys)))
	require.NoError(t, err)
	require.NotNil(t, resp.TLS)
	requireDecodes(t, resp)
	c.CloseIdleConnections()
	require.Equal(t, ExitOK, stop())
}

// Beyond loopback, every decode would be open to the network: no token, no start.
func TestCodecServerNeedsATokenBeyondLoopback(t *testing.T) {
	testKeys(t)
	for _, listen := range []string{"0.0.0.0:8081", ":8081", "[::]:8081", "192.0.2.1:8081", "codec.example:8081"} {
		code, _, errs := run(t, "codec-server", "--listen", listen)
		require.Equal(t, ExitUsage, code, listen)
		require.Contains(t, errs, "listening beyond loopback on "+listen+": every decode would be open to the network; give --auth-token-file")
	}

	// With a token the rule is met; 192.0.2.1 (TEST-NET) is not ours, so it fails
	// at listening instead, and nothing here ever listens beyond loopback.
	tok := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tok, []byte("s3cret\n"), 0o600))
	code, _, errs := run(t, "codec-server", "--listen", "192.0.2.1:0", "--auth-token-file", tok)
	require.Equal(t, ExitFailed, code, errs)
	require.Contains(t, errs, "--listen:")
	require.NotContains(t, errs, "loopback")
}

func TestLoopback(t *testing.T) {
	for listen, want := range map[string]bool{
		"127.0.0.1:8081": true, "127.3.2.1:1": true, "[::1]:8081": true, "localhost:8081": true, "LocalHost:1": true,
		"0.0.0.0:8081": false, ":8081": false, "[::]:8081": false, "10.1.2.3:8081": false, "codec.example:8081": false, "nonsense": false,
	} {
		require.Equal(t, want, loopback(listen), listen)
	}
}

// Both servers check the network flags the same way, before they dial or listen.
func TestServeFlagsAreCheckedFirst(t *testing.T) {
	testKeys(t)
	t.Setenv("SLIPWAY_WEBHOOK_SECRET", "s")
	certFile, keyFile, _ := httpservetest.SelfSigned(t)
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--read-timeout", "-1s"}, "--read-timeout: -1s is negative"},
		{[]string{"--write-timeout", "-5ms"}, "--write-timeout: -5ms is negative"},
		{[]string{"--idle-timeout", "-1m"}, "--idle-timeout: -1m0s is negative"},
		{[]string{"--shutdown-grace", "-1s"}, "--shutdown-grace: -1s is negative"},
		{[]string{"--max-concurrent", "0"}, "--max-concurrent: 0: want at least 1"},
		{[]string{"--max-per-client", "0"}, "--max-per-client: 0: want at least 1"},
		{[]string{"--max-conns-per-client", "-1"}, "--max-conns-per-client: -1: want at least 1"},
		{[]string{"--tls-cert", certFile}, "--tls-key: --tls-cert needs its key"},
		{[]string{"--tls-key", keyFile}, "--tls-cert: --tls-key needs its certificate"},
		{[]string{"--tls-cert", missing, "--tls-key", keyFile}, "--tls-cert: open " + missing},
		{[]string{"--tls-cert", certFile, "--tls-key", missing}, "--tls-key: open " + missing},
		{[]string{"--tls-cert", keyFile, "--tls-key", keyFile}, "--tls-cert, --tls-key:"},
	} {
		for _, cmd := range [][]string{{"codec-server", "--listen", "127.0.0.1:0"}, {"webhook", "serve", "--listen", "127.0.0.1:0"}} {
			code, _, errs := run(t, append(cmd, tc.args...)...)
			require.Equal(t, ExitUsage, code, "%v %v: %s", cmd, tc.args, errs)
			require.Contains(t, errs, tc.want, "%v %v", cmd, tc.args)
		}
	}
}

func TestCodecServerWithoutAKey(t *testing.T) {
	t.Setenv(codec.EnvKey, "")
	t.Setenv(codec.EnvKeyFile, "")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	code, _, errs := run(t, "codec-server", "--listen", "127.0.0.1:0")
	require.Equal(t, ExitFailed, code)
	require.Contains(t, errs, "slipway codec keygen")
}

// Issue 23, case 11, against the command: a DNS-rebinding request (a foreign Host)
// and a page of an origin that is not allowed are refused with 403 and decode
// nothing; the names given with --allowed-host and the allowed UI still decode.
func TestCodecServerRefusesForeignHostsAndOrigins(t *testing.T) {
	keys := testKeys(t)
	url, stop := startCodecServer(t, "--listen", "127.0.0.1:0", "--allowed-host", "codec.example")
	port := url[strings.LastIndex(url, ":")+1:]
	do := func(host, origin string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, url+"/decode", bytes.NewReader(sealedBatch(t, keys)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	for _, tc := range []struct{ host, origin string }{
		{"rebind.attacker.example:" + port, "http://rebind.attacker.example:" + port},
		{"rebind.attacker.example:" + port, ""},
		{"", "http://evil.example"},
		{"", "null"},
	} {
		code, body := do(tc.host, tc.origin)
		require.Equal(t, http.StatusForbidden, code, "Host %q Origin %q: %s", tc.host, tc.origin, body)
		require.NotContains(t, body, "acme/web")
		require.NotContains(t, body, "ImFjbWUvd2ViIg==", "the decoded payload (protojson bytes are base64)")
	}
	for _, host := range []string{"", "localhost:" + port, "codec.example", "CODEC.example:443"} {
		code, body := do(host, "http://localhost:8233")
		require.Equal(t, http.StatusOK, code, "Host %q: %s", host, body)
		require.Contains(t, body, "ImFjbWUvd2ViIg==", "the decoded payload")
	}
	require.Equal(t, ExitOK, stop())

	for _, bad := range []string{"http://codec.example", "codec.example:443", "codec.example/ui", "", "a..b", "-x.example"} {
		code, _, errs := run(t, "codec-server", "--listen", "127.0.0.1:0", "--allowed-host", bad)
		require.Equal(t, ExitUsage, code, bad)
		require.Contains(t, errs, "--allowed-host", bad)
	}
}
