package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/httpserve/httpservetest"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/testsuite"
)

// floodRepo is the repository the flood test's GitHub pushes name, the one its server allows.
const floodRepo = "flood/gitops"

// trickle opens a connection from 127.0.0.2 that sends a GitHub delivery's headers,
// announcing a 4 KiB body, then one byte of it every 200 ms; it reports how it ended.
func trickle(t *testing.T, addr string, answers chan<- httpservetest.Answer) {
	t.Helper()
	head := "POST /github HTTP/1.1\r\nHost: hooks.example\r\nX-GitHub-Event: push\r\n" +
		"X-GitHub-Delivery: flood\r\nX-Hub-Signature-256: sha256=" + strings.Repeat("0", 64) + "\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{"
	answered := httpservetest.Trickle(t, "127.0.0.2", addr, head, 200*time.Millisecond, 2*time.Minute)
	go func() { answers <- <-answered }()
}

// sendFrom posts a signed GitHub push with one commit line from source address ip.
func sendFrom(t *testing.T, ip, url string, secret []byte, delivery, rev, line string) (int, string) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"ref": "refs/heads/main", "after": rev, "repository": map[string]string{"full_name": floodRepo},
		"pusher": map[string]string{"name": "alice"}, "commits": []map[string]any{{"id": rev, "message": line,
			"author": map[string]string{"name": "alice", "username": "alice"}}}})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url+"/github", bytes.NewReader(body))
	require.NoError(t, err)
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", delivery)
	c := &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext}}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(got)
}

// Issue 23, case 10, on the real webhook server behind the real HTTP server and a
// real Temporal: unauthenticated connections from one address, past twice its share,
// each announce a body and trickle it one byte at a time. Before, they held every slot
// and a signed delivery got 503. Now that address gets its share and no more
// (connections over twice it closed at accept, the other requests over it answered
// 503 with Retry-After), none of them holds a work
// slot, and while the flood goes on a signed push from another address is answered
// 202 and carried out. The flood's requests that were let in are cut off at the
// read timeout with 408.
func TestWebhookServesASignedDeliveryDuringASlowFlood(t *testing.T) {
	webhookPushers(t, "alice", "bob", "carol", "mallory", "slipway")
	ctx := context.Background()
	e := testsuite.NewEnv(t)
	testsuite.PushFiles(t, e.GitOpsRepo, "one instance", map[string][]byte{
		"instances/flood/a/instance.yaml": []byte("stack: example\nparameters:\n  greeting: hello\n")})
	rev, err := e.Activities.Forge.Head(ctx)
	require.NoError(t, err)
	secret := []byte("flood-secret")
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{"github": {Secret: secret, Repos: []string{floodRepo}}}}, e.Client)
	require.NoError(t, err)

	const readTimeout = 5 * time.Second
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String()
	srvCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- httpserve.Serve(srvCtx, ln, h, httpserve.WithReadTimeout(readTimeout)) }()
	t.Cleanup(func() {
		stop()
		<-served
		h.Close()
	})

	const n = 2*httpserve.DefaultMaxConnsPerClient + 16
	answers := make(chan httpservetest.Answer, n)
	for range n {
		trickle(t, ln.Addr().String(), answers)
	}
	// Everything over the address's share is refused at once; the rest is held reading.
	refused := map[int]int{}
	for range n - httpserve.DefaultMaxPerClient {
		select {
		case a := <-answers:
			refused[a.Code]++
		case <-time.After(time.Minute):
			t.Fatalf("only %v of the flood's %d connections were refused", refused, n)
		}
	}
	t.Logf("flood of %d connections from 127.0.0.2: refused at once %v (0: closed at accept)", n, refused)
	assert.Equal(t, map[int]int{0: n - 2*httpserve.DefaultMaxConnsPerClient, http.StatusServiceUnavailable: 2*httpserve.DefaultMaxConnsPerClient - httpserve.DefaultMaxPerClient}, refused)

	began := time.Now()
	code, body := sendFrom(t, "127.0.0.3", url, secret, "flood-signed", rev, "[slipway][create] flood/a")
	require.Equal(t, http.StatusAccepted, code, "the signed delivery is recorded during the flood: %s", body)
	t.Logf("signed delivery during the flood: %d in %s", code, time.Since(began).Round(time.Millisecond))
	code, body = sendFrom(t, "127.0.0.3", url, []byte("not the secret"), "flood-forged", rev, "[slipway][create] flood/a")
	assert.Equal(t, http.StatusUnauthorized, code, body)

	for range httpserve.DefaultMaxPerClient {
		select {
		case a := <-answers:
			assert.Equal(t, http.StatusRequestTimeout, a.Code, "a trickling body is cut off with 408")
			// The client's clock starts a moment after the server's deadline was set at accept.
			assert.GreaterOrEqual(t, a.Elapsed, readTimeout-100*time.Millisecond, "at the read timeout, not before")
		case <-time.After(time.Minute):
			t.Fatal("a trickling client was never cut off")
		}
	}
	waitState(t, e, "flood/a", lifecycle.ConfigurationCreated)
}
