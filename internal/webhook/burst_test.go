package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/httpserve"
)

// Issue 39: a forge sends a burst of signed deliveries from one address, each on its own
// connection, and records a reset connection as a failed delivery it does not retry. On the
// real webhook server behind the real HTTP server with its defaults, a burst of 96 from one
// address (three times a forge's 32) is never reset: each delivery is recorded (202) or told
// to come back (503 with Retry-After), and a forge's burst of 32 is recorded whole.
func TestBurstOfSignedDeliveriesFromOneAddressIsNeverReset(t *testing.T) {
	s, _ := newServer(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpserve.Serve(ctx, ln, s) }()
	t.Cleanup(func() { stop(); <-served })
	url := "http://" + ln.Addr().String() + "/github"

	for i, n := range []int{32, 96} {
		codes := burst(t, url, fmt.Sprintf("burst%d-", i), n)
		t.Logf("burst of %d signed deliveries from 127.0.0.9: %v", n, codes)
		for code := range codes {
			assert.Contains(t, []int{http.StatusAccepted, http.StatusServiceUnavailable}, code, "burst of %d: %v", n, codes)
		}
		if n <= 32 {
			assert.Equal(t, map[int]int{http.StatusAccepted: n}, codes, "a forge's burst fits its share")
		}
		// Let the first burst's connections close before the next.
		time.Sleep(100 * time.Millisecond)
	}
}

// burst posts n signed pushes at once from 127.0.0.9, each on its own connection, and counts
// the answers by status; a transport error (a reset or closed connection) fails the test, and
// every 503 must say when to come back.
func burst(t *testing.T, url, prefix string, n int) map[int]int {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.9")}}).DialContext}}
	body := []byte(pushBody)
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	sig := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	ready := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			if !assert.NoError(t, err) {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "push")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("%s%d", prefix, i))
			req.Header.Set("X-Hub-Signature-256", sig)
			<-ready
			resp, err := c.Do(req)
			if !assert.NoError(t, err, "delivery %d of %d: a forge records this as failed", i, n) {
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusServiceUnavailable {
				assert.NotEmpty(t, resp.Header.Get("Retry-After"), "a 503 says when to come back")
			}
			mu.Lock()
			codes[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	close(ready)
	wg.Wait()
	return codes
}
