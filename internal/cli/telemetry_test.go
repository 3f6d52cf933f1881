package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/health"
)

// probe GETs path on base with the Host header host ("" keeps the URL's).
func probe(t *testing.T, base, path, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// The codec server answers probes and scrapes by pod IP (any Host, no token), while every
// other request still needs its Host and its token; /metrics holds no payload.
func TestCodecServerServesProbesAheadOfItsHostCheckAndToken(t *testing.T) {
	keys := testKeys(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("t0ken\n"), 0o600))
	url, stop := startCodecServer(t, "--listen", "127.0.0.1:0", "--auth-token-file", tokenFile)
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		code, body := probe(t, url, p, "10.1.2.3:8081")
		require.Equal(t, http.StatusOK, code, "%s: %s", p, body)
	}
	_, body := probe(t, url, "/metrics", "")
	require.Contains(t, body, `slipway_build_info{`)
	require.Contains(t, body, `service="slipway-codec-server"`)
	// The attack: reach the decoder through the telemetry paths' exemption.
	for _, p := range []string{"/metrics/../decode", "/healthz/", "/readyz?x=/decode"} {
		req, err := http.NewRequest(http.MethodPost, url+p, bytes.NewReader(sealedBatch(t, keys)))
		require.NoError(t, err)
		req.Host = "10.1.2.3:8081"
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NotEqual(t, http.StatusOK, resp.StatusCode, "%s: %s", p, b)
		require.NotContains(t, string(b), "ImFjbWUvd2ViIg==", "the decoded payload")
	}
	require.Equal(t, ExitOK, stop())
}

// With Temporal unreachable, `webhook serve` is alive but not ready, and says why.
func TestWebhookServeIsNotReadyWhileTemporalIsDown(t *testing.T) {
	testKeys(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close())
	t.Setenv("TEMPORAL_ADDRESS", dead)
	t.Setenv("SLIPWAY_WEBHOOK_GITHUB_SECRET", "s3cret")
	t.Setenv("SLIPWAY_FORGE", "github")
	t.Setenv("SLIPWAY_FORGE_REPO", "acme/gitops")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"webhook", "serve", "--listen", "127.0.0.1:0"}, Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
		pw.Close()
	}()
	t.Cleanup(func() { cancel(); <-done })
	sc := bufio.NewScanner(pr)
	var url string
	for url == "" && sc.Scan() {
		if m := regexp.MustCompile(`serving on (http://\S+)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	require.NotEmpty(t, url, "stderr: %s", errb.String())

	code, _ := probe(t, url, "/healthz", "")
	require.Equal(t, http.StatusOK, code)
	code, body := probe(t, url, "/readyz", "")
	require.Equal(t, http.StatusServiceUnavailable, code, body)
	var rep health.Report
	require.NoError(t, json.Unmarshal([]byte(body), &rep))
	require.Equal(t, []string{"temporal"}, rep.Failing)
	_, body = probe(t, url, "/metrics", "")
	require.Contains(t, body, "slipway_ready 0")
}
