package httpserve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// running is a Serve call on a loopback port; it is stopped when the test ends.
type running struct {
	addr   string
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

func start(t *testing.T, h http.Handler, opts ...Option) *running {
	t.Helper()
	s, err := New(opts...)
	require.NoError(t, err)
	return startServer(t, s, h)
}

func startServer(t *testing.T, s *Server, h http.Handler) *running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{addr: ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- s.Serve(ctx, ln, h) }()
	t.Cleanup(func() { _ = r.stop() })
	return r
}

// stop cancels the context and waits for Serve to return.
func (r *running) stop() error {
	r.cancel()
	r.once.Do(func() { r.err = <-r.done })
	return r.err
}

// blocker is a handler that holds its requests until released.
type blocker struct {
	entered chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (b *blocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case b.entered <- struct{}{}:
	default: // nobody is counting any more
	}
	select {
	case <-b.release:
		_, _ = io.WriteString(w, "done")
	case <-r.Context().Done():
	}
}

func (b *blocker) waitEntered(t *testing.T, n int) {
	t.Helper()
	for range n {
		select {
		case <-b.entered:
		case <-time.After(10 * time.Second):
			t.Fatal("a request never reached the handler")
		}
	}
}

type result struct {
	code int
	body string
	err  error
}

// get runs one request on its own connection (no shared keep-alive pool).
func get(url string) result {
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{code: resp.StatusCode, body: string(b), err: err}
}

func getAsync(url string) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- get(url) }()
	return ch
}

// With every slot taken, a request is answered 503 with Retry-After and says why;
// once the slots free up, requests are served again.
func TestCapAnswersBusyAndRecovers(t *testing.T) {
	b := newBlocker()
	r := start(t, b, WithMaxConcurrent(2), WithQueueWait(10*time.Millisecond))
	url := "http://" + r.addr + "/"
	first, second := getAsync(url), getAsync(url)
	b.waitEntered(t, 2)

	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Get(url)
	require.NoError(t, err)
	var body struct{ Error string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, "server busy: 2 requests in flight, the limit is 2 (--max-concurrent)", body.Error)

	close(b.release)
	for _, ch := range []<-chan result{first, second} {
		res := <-ch
		require.NoError(t, res.err)
		assert.Equal(t, http.StatusOK, res.code)
	}
	res := get(url)
	require.NoError(t, res.err)
	assert.Equal(t, http.StatusOK, res.code, "the cap recovers once requests finish")
	require.NoError(t, r.stop())
}

// A request that finds the slots full waits up to the queue wait for one to free.
func TestCapWaitsBrieflyForASlot(t *testing.T) {
	b := newBlocker()
	r := start(t, b, WithMaxConcurrent(1), WithQueueWait(time.Minute))
	url := "http://" + r.addr + "/"
	first := getAsync(url)
	b.waitEntered(t, 1)
	second := getAsync(url)
	time.Sleep(20 * time.Millisecond) // give the second request time to queue; passes either way
	close(b.release)
	for _, ch := range []<-chan result{first, second} {
		res := <-ch
		require.NoError(t, res.err)
		assert.Equal(t, http.StatusOK, res.code)
	}
}

// Ending the context stops new connections at once, and an in-flight request
// still finishes with its 200.
func TestShutdownFinishesInFlightRequests(t *testing.T) {
	b := newBlocker()
	r := start(t, b, WithShutdownGrace(time.Minute))
	inflight := getAsync("http://" + r.addr + "/")
	b.waitEntered(t, 1)

	stopped := make(chan error, 1)
	go func() { stopped <- r.stop() }()
	require.Eventually(t, func() bool {
		conn, err := net.DialTimeout("tcp", r.addr, time.Second)
		if err != nil {
			return true
		}
		conn.Close()
		return false
	}, 10*time.Second, 10*time.Millisecond, "the listener still accepts after shutdown began")
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned before its in-flight request finished: %v", err)
	default:
	}

	close(b.release)
	res := <-inflight
	require.NoError(t, res.err)
	assert.Equal(t, http.StatusOK, res.code)
	assert.Equal(t, "done", res.body)
	require.NoError(t, <-stopped)
}

// A request still running when the grace runs out is cut off, its context is
// cancelled, and Serve says so.
func TestShutdownGraceRunsOut(t *testing.T) {
	b := newBlocker()
	r := start(t, b, WithShutdownGrace(50*time.Millisecond))
	inflight := getAsync("http://" + r.addr + "/")
	b.waitEntered(t, 1)

	var grace *GraceExceededError
	require.ErrorAs(t, r.stop(), &grace)
	assert.Equal(t, 50*time.Millisecond, grace.Grace)
	res := <-inflight
	assert.Error(t, res.err, "the cut-off request gets no answer")
}

// A client that sends its headers a byte at a time is cut off by the header
// timeout: the connection ends and the handler never runs.
func TestSlowHeadersAreCutOff(t *testing.T) {
	var ran atomic.Bool
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran.Store(true) })
	r := start(t, h, WithReadHeaderTimeout(200*time.Millisecond), WithReadTimeout(0))
	conn, err := net.Dial("tcp", r.addr)
	require.NoError(t, err)
	defer conn.Close()

	stop := make(chan struct{})
	defer close(stop)
	go func() {
		if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
			return
		}
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte("a")); err != nil {
					return // the server hung up
				}
			}
		}
	}()

	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	got, err := io.ReadAll(conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server kept a client that never finished its headers")
	}
	assert.NotContains(t, string(got), "200 OK")
	assert.False(t, ran.Load(), "the handler never sees a request whose headers did not arrive")
}

func TestOptionsRejectBadValues(t *testing.T) {
	for name, o := range map[string]Option{
		"read header": WithReadHeaderTimeout(-time.Second),
		"read":        WithReadTimeout(-time.Second),
		"write":       WithWriteTimeout(-1),
		"idle":        WithIdleTimeout(-time.Minute),
		"grace":       WithShutdownGrace(-time.Second),
		"queue":       WithQueueWait(-time.Millisecond),
		"concurrent":  WithMaxConcurrent(0),
		"headers":     WithMaxHeaderBytes(0),
		"key only":    WithTLS("", "key.pem"),
		"cert only":   WithTLS("cert.pem", ""),
	} {
		_, err := New(o)
		var oe *OptionError
		assert.ErrorAs(t, err, &oe, name)
	}
	s, err := New(WithReadTimeout(0), WithWriteTimeout(0), WithTLS("", ""), WithLogger(nil))
	require.NoError(t, err, "0 means no limit; no TLS files means plain HTTP")
	assert.Equal(t, "http", s.Scheme())
}
