package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// With Temporal unreachable, `webhook serve` still starts, and answers a signed delivery
// 503 with Retry-After, so the forge keeps it for a redelivery instead of losing it.
func TestWebhookServeAnswers503WhileTemporalIsDown(t *testing.T) {
	testKeys(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	t.Setenv("TEMPORAL_ADDRESS", dead)
	t.Setenv("SLIPWAY_WEBHOOK_SECRET", "s3cret")

	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"webhook", "serve", "--listen", "127.0.0.1:0", "--record-timeout", "300ms"},
			Streams{In: strings.NewReader(""), Out: pw, Err: &errb})
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

	body := []byte(`{"ref":"refs/heads/main","commits":[{"id":"c1","message":"[slipway][archive] acme/web"}]}`)
	req, err := http.NewRequest(http.MethodPost, url+"/github", bytes.NewReader(body))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", "down-1")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(msg))
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.Contains(t, string(msg), "redeliver it")
}
