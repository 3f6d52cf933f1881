package httpserve

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/httpserve/httpservetest"
)

const floodSecret = "flood-test-secret"

// signedHandler stands for a webhook endpoint: it serves only bodies signed with
// floodSecret (HMAC-SHA256 in X-Signature) and counts what reached it.
type signedHandler struct{ reached atomic.Int64 }

func (h *signedHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.reached.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if !hmac.Equal([]byte(r.Header.Get("X-Signature")), []byte(sign(body))) {
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	_, _ = io.WriteString(w, "accepted "+string(body))
}

func sign(body []byte) string {
	m := hmac.New(sha256.New, []byte(floodSecret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// dialFrom connects to addr from the loopback source address ip (any 127.0.0.0/8 address is local).
func dialFrom(ip, addr string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return d.Dial("tcp", addr)
}

// postFrom sends one request with body from source address ip on its own connection.
func postFrom(t *testing.T, ip, addr string, body []byte, signature string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext:       (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext,
	}}
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/hook", bytes.NewReader(body))
	require.NoError(t, err)
	if signature != "" {
		req.Header.Set("X-Signature", signature)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(got)
}

// slowClient sends a request's headers announcing a 1000-byte body, then one byte
// of it every interval until the server answers or hangs up.
type slowClient struct{ answered <-chan httpservetest.Answer }

func startSlow(t *testing.T, ip, addr string, interval time.Duration) *slowClient {
	t.Helper()
	head := "POST /hook HTTP/1.1\r\nHost: hooks.example\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
	return &slowClient{answered: httpservetest.Trickle(t, ip, addr, head, interval, time.Minute)}
}

// waitAnswered collects the answers of the clients that are answered before the
// others, until n are; the rest are returned still waiting.
func waitAnswered(t *testing.T, clients []*slowClient, n int) (answered []httpservetest.Answer, waiting []*slowClient) {
	t.Helper()
	pending := append([]*slowClient(nil), clients...)
	deadline := time.After(time.Minute)
	for len(answered) < n {
		progress := false
		for i := 0; i < len(pending) && len(answered) < n; i++ {
			select {
			case a := <-pending[i].answered:
				answered = append(answered, a)
				pending = append(pending[:i], pending[i+1:]...)
				i--
				progress = true
			default:
			}
		}
		if !progress {
			select {
			case <-deadline:
				t.Fatalf("only %d of the flood's connections were refused; want %d", len(answered), n)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return answered, pending
}

// The attack of issue 23, case 10: connections from one address, past twice its
// share, each announce a body and trickle it a byte at a time. That address gets
// its share and no more: connections over twice its share are closed at once,
// requests on connections over its share and requests over its share of bodies
// arriving are answered 503 with Retry-After, and none of them holds a work
// slot. A signed request from another address is served while the flood goes on;
// the flood's requests that were let in are cut off at the read timeout with 408,
// and none of the flood's requests ever reaches the handler.
func TestSlowFloodFromOneAddressLeavesRoomForASignedRequest(t *testing.T) {
	const readTimeout = 3 * time.Second
	h := &signedHandler{}
	r := start(t, h, WithReadTimeout(readTimeout))

	flood := make([]*slowClient, 2*DefaultMaxConnsPerClient+16)
	for i := range flood {
		flood[i] = startSlow(t, "127.0.0.2", r.addr, 200*time.Millisecond)
	}
	// Everything over the share is refused at once; what is left is held by the server.
	refused, held := waitAnswered(t, flood, len(flood)-DefaultMaxPerClient)
	closed, busy := 0, 0
	for _, a := range refused {
		switch a.Code {
		case 0:
			closed++
		case http.StatusServiceUnavailable:
			busy++
		default:
			t.Errorf("a flood connection over its share was answered %d (%v)", a.Code, a.Err)
		}
	}
	t.Logf("flood of %d from 127.0.0.2: %d connections closed at accept, %d answered 503, %d held reading", len(flood), closed, busy, len(held))
	assert.Equal(t, len(flood)-2*DefaultMaxConnsPerClient, closed, "connections over twice the per-client share are closed at accept")
	assert.Equal(t, 2*DefaultMaxConnsPerClient-DefaultMaxPerClient, busy)

	body := []byte(`{"ref":"acme/web"}`)
	code, got := postFrom(t, "127.0.0.3", r.addr, body, sign(body))
	assert.Equal(t, http.StatusOK, code, got)
	assert.Equal(t, "accepted "+string(body), got)
	code, _ = postFrom(t, "127.0.0.3", r.addr, body, "forged")
	assert.Equal(t, http.StatusUnauthorized, code, "the handler still authenticates")

	for _, s := range held {
		select {
		case a := <-s.answered:
			assert.Equal(t, http.StatusRequestTimeout, a.Code, "a trickling body is cut off with 408 (%v)", a.Err)
			assert.GreaterOrEqual(t, a.Elapsed, readTimeout, "cut at the read timeout, not before")
		case <-time.After(time.Minute):
			t.Fatal("a trickling client was never cut off")
		}
	}
	assert.Equal(t, int64(2), h.reached.Load(), "no request of the flood reached the handler")
}

// Slow bodies from many addresses, each within its share, hold no work slot: with
// one work slot and 8 addresses trickling 8 bodies each, a signed request is served.
func TestSlowBodiesFromManyAddressesHoldNoWorkSlot(t *testing.T) {
	h := &signedHandler{}
	r := start(t, h, WithMaxConcurrent(1), WithMaxPerClient(8), WithReadTimeout(time.Minute))
	var held []*slowClient
	for a := 2; a < 10; a++ {
		ip := fmt.Sprintf("127.0.1.%d", a)
		clients := make([]*slowClient, 9)
		for i := range clients {
			clients[i] = startSlow(t, ip, r.addr, 200*time.Millisecond)
		}
		// The ninth is over the share: its 503 says the other eight are all reading.
		refused, waiting := waitAnswered(t, clients, 1)
		require.Equal(t, http.StatusServiceUnavailable, refused[0].Code, ip)
		held = append(held, waiting...)
	}
	require.Len(t, held, 64)

	body := []byte(`{"ref":"acme/web"}`)
	code, got := postFrom(t, "127.0.0.3", r.addr, body, sign(body))
	assert.Equal(t, http.StatusOK, code, got)
	for _, s := range held {
		select {
		case a := <-s.answered:
			t.Errorf("a trickling client was answered %d before its read timeout (%v)", a.Code, a.Err)
		default:
		}
	}
	assert.Equal(t, int64(1), h.reached.Load())
}

// A client address holds at most its share of open connections: a request on a
// connection over it is answered 503 with Retry-After (never reset), one over
// twice it is closed at once, another address is not affected, and a closed
// connection gives its place back.
func TestConnectionsPerClientAreCapped(t *testing.T) {
	r := start(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
		WithMaxConnsPerClient(2))
	var conns []net.Conn
	for range 4 {
		c, err := dialFrom("127.0.0.4", r.addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
	}
	over, err := dialFrom("127.0.0.4", r.addr)
	require.NoError(t, err)
	defer over.Close()
	require.NoError(t, over.SetReadDeadline(time.Now().Add(time.Minute)))
	_, err = over.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the fifth connection from one address, over twice its share, is closed at once")

	code, got := postFrom(t, "127.0.0.5", r.addr, []byte("x"), "")
	assert.Equal(t, http.StatusOK, code, "another address is served: %s", got)

	get := func(c net.Conn) *http.Response {
		t.Helper()
		_, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	assert.Equal(t, http.StatusOK, get(conns[0]).StatusCode, "a connection within the share is served")
	resp := get(conns[2])
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "a connection over the share is told to come back")
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))

	require.NoError(t, conns[1].Close())
	require.NoError(t, conns[2].Close())
	require.NoError(t, conns[3].Close())
	require.Eventually(t, func() bool {
		res := getFrom("127.0.0.4", r.addr)
		return res.err == nil && res.code == http.StatusOK
	}, 20*time.Second, 20*time.Millisecond, "a closed connection gives its place back")
}

func getFrom(ip, addr string) result {
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext:       (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}).DialContext,
	}}
	resp, err := c.Get("http://" + addr + "/")
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{code: resp.StatusCode, body: string(b), err: err}
}

// A body over the limit is answered 413 and never reaches the handler, whether it
// says its length up front or not.
func TestBodyOverTheLimitNeverReachesTheHandler(t *testing.T) {
	h := &signedHandler{}
	r := start(t, h, WithMaxBodyBytes(1024))
	big := []byte(strings.Repeat("x", 2048))
	code, got := postFrom(t, "127.0.0.1", r.addr, big, sign(big))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	assert.Contains(t, got, "request body over 1024 bytes")

	// Chunked: no Content-Length, so the limit is found while reading.
	req, err := http.NewRequest(http.MethodPost, "http://"+r.addr+"/hook", io.MultiReader(bytes.NewReader(big)))
	require.NoError(t, err)
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err == nil {
		resp.Body.Close()
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	}
	assert.Equal(t, int64(0), h.reached.Load())

	small := []byte("{}")
	code, _ = postFrom(t, "127.0.0.1", r.addr, small, sign(small))
	assert.Equal(t, http.StatusOK, code)
}

func TestClientKey(t *testing.T) {
	for remote, want := range map[string]string{
		"127.0.0.2:4000":             "127.0.0.2",
		"[::ffff:10.1.2.3]:80":       "10.1.2.3",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:443": "2001:db8:1:2::/64",
		"[fe80::1%eth0]:1":           "fe80::/64",
		"not an address":             "not an address",
		"[2001:db8:1:3::1]:443":      "2001:db8:1:3::/64",
	} {
		assert.Equal(t, want, clientKey(remote), remote)
	}
}

func TestTallyCountsPerKey(t *testing.T) {
	tl := newTally()
	var wg sync.WaitGroup
	var took atomic.Int64
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := tl.take("a", 8); ok {
				took.Add(1)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(8), took.Load())
	held, ok := tl.take("b", 8)
	assert.True(t, ok, "another key has its own share")
	assert.Equal(t, 1, held)
	tl.give("a")
	assert.Equal(t, 7, tl.held("a"))
	held, ok = tl.take("a", 8)
	assert.True(t, ok)
	assert.Equal(t, 8, held)
}

// admitting refuses a request without a well-formed X-Signature from its headers alone.
type admitting struct{ signedHandler }

func (a *admitting) Admit(r *http.Request) (int, error) {
	if sig, err := hex.DecodeString(r.Header.Get("X-Signature")); err != nil || len(sig) != sha256.Size {
		return http.StatusUnauthorized, errors.New("missing or malformed X-Signature")
	}
	return 0, nil
}

// A handler that can refuse from the headers is asked before the body is read: a
// client that announces a body and never sends it is refused at once, with no read
// timeout to wait for, and the handler never runs for it.
func TestAdmitterRefusesBeforeTheBodyIsRead(t *testing.T) {
	h := &admitting{}
	r := start(t, h, WithReadTimeout(0))
	conn, err := dialFrom("127.0.0.1", r.addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /hook HTTP/1.1\r\nHost: x\r\nX-Signature: sha256=00\r\nContent-Length: 1000\r\n\r\n")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "answered without the body: it was never waited for")
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, string(got), "missing or malformed X-Signature")
	assert.Zero(t, h.reached.Load())

	body := []byte(`{"ref":"acme/web"}`)
	code, got2 := postFrom(t, "127.0.0.1", r.addr, body, sign(body))
	assert.Equal(t, http.StatusOK, code, got2)
}
