package httpserve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Admitter is a handler that can refuse a request from its headers alone (a missing
// or malformed signature, a wrong token). The server asks it before it reads the
// body, so such a client never has its body read. A nil error admits the request;
// otherwise the answer is code with err's text.
type Admitter interface {
	Admit(r *http.Request) (code int, err error)
}

// Refuser is a handler that writes the server's own refusals in its own error format (the
// API's problem details); others get {"error": msg}.
type Refuser interface {
	Refuse(w http.ResponseWriter, code int, msg string)
}

// limiter refuses a request on a connection over its client's share with 503, then
// admits one in two stages. While its body is still arriving it
// holds one of its client address's reading slots (at most perClient), never a
// work slot: a flood of slow clients, from one address or many, leaves every work
// slot to requests that have arrived whole. Once the body is read in full (at most
// maxBody bytes, within the read timeout), it takes one of n work slots, waiting
// at most wait, and only then reaches the handler.
type limiter struct {
	h         http.Handler
	slots     chan struct{}
	reading   *tally
	perClient int
	// perClientConns is only named in the refusal of a connection over it.
	perClientConns int
	maxBody        int64
	// budget bounds the body bytes held while they arrive, across every client address.
	budget  *byteBudget
	wait    time.Duration
	log     *zap.Logger
	busyLog *zap.Logger // sampled: one line a second tells an operator a cap is hit
}

func newLimiter(h http.Handler, c config) *limiter {
	return &limiter{
		h: h, slots: make(chan struct{}, c.maxConcurrent), reading: newTally(), perClient: c.perClientReading(),
		perClientConns: c.maxConnsPerClient,
		maxBody:        c.maxBody, budget: &byteBudget{free: c.buffered()}, wait: c.queueWait, log: c.log, busyLog: sampled(c.log),
	}
}

func sampled(log *zap.Logger) *zap.Logger {
	return log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core {
		return zapcore.NewSamplerWithOptions(c, time.Second, 1, 0)
	}))
}

func (l *limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := clientKey(r.RemoteAddr)
	if overShare(r) {
		l.busyLog.Warn("client over its share of connections: refusing with 503", zap.String("client", key), zap.Int("max_conns_per_client", l.perClientConns))
		l.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf(
			"too many connections from %s: the limit per client address is %d (--max-conns-per-client)", key, l.perClientConns))
		return
	}
	if _, ok := l.reading.take(key, l.perClient); !ok {
		l.busyLog.Warn("client over its share: refusing with 503", zap.String("client", key), zap.Int("max_per_client", l.perClient))
		l.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf(
			"too many requests still arriving from %s: the limit per client address is %d (--max-per-client)", key, l.perClient))
		return
	}
	if a, ok := l.h.(Admitter); ok {
		if code, err := a.Admit(r); err != nil {
			l.reading.give(key)
			l.refuse(w, code, err.Error())
			return
		}
	}
	need := l.reservation(r)
	if !l.budget.take(need) {
		l.reading.give(key)
		l.busyLog.Warn("bodies arriving fill the server's buffer: refusing with 503", zap.String("client", key), zap.Int64("need_bytes", need))
		l.refuse(w, http.StatusServiceUnavailable, "server busy: the request bodies arriving fill its buffer; try again")
		return
	}
	err := l.readBody(w, r)
	l.budget.give(need)
	l.reading.give(key)
	if err != nil {
		l.refuseBody(w, key, err)
		return
	}
	if !acquire(r, l.slots, l.wait) {
		if r.Context().Err() != nil {
			return // the client left while waiting
		}
		inFlight, n := len(l.slots), cap(l.slots)
		l.busyLog.Warn("server busy: refusing requests with 503", zap.Int("in_flight", inFlight), zap.Int("max_concurrent", n))
		l.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("server busy: %d requests in flight, the limit is %d (--max-concurrent)", inFlight, n))
		return
	}
	defer func() { <-l.slots }()
	l.h.ServeHTTP(w, r)
}

// readBody reads r's body into memory and puts it back as a bytes.Reader, so
// the handler never waits on the client.
func (l *limiter) readBody(w http.ResponseWriter, r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	if r.ContentLength > l.maxBody {
		return &http.MaxBytesError{Limit: l.maxBody}
	}
	var body []byte
	var err error
	if n := r.ContentLength; n > 0 {
		// Exactly what was reserved: ReadAll's growing buffer would hold up to twice as much.
		body = make([]byte, n)
		if _, err = io.ReadFull(http.MaxBytesReader(w, r.Body, n), body); err != nil {
			return err
		}
	} else if body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, l.maxBody)); err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return nil
}

func (l *limiter) refuseBody(w http.ResponseWriter, key string, err error) {
	var tooBig *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &tooBig):
		l.refuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", l.maxBody))
	case errors.As(err, &ne) && ne.Timeout():
		l.busyLog.Info("request body not received within the read timeout: cut off", zap.String("client", key))
		l.refuse(w, http.StatusRequestTimeout, "request body not received within the read timeout (--read-timeout)")
	default:
		// The client hung up or sent a broken body: nobody reads the answer.
		l.refuse(w, http.StatusBadRequest, "reading the request body: "+err.Error())
	}
}

// reservation is what r's body may hold: its Content-Length, or the most any body may.
func (l *limiter) reservation(r *http.Request) int64 {
	if r.Body == nil || r.Body == http.NoBody {
		return 0
	}
	if r.ContentLength >= 0 && r.ContentLength <= l.maxBody {
		return r.ContentLength
	}
	return l.maxBody
}

// byteBudget is a count of bytes that may still be held; take never waits.
type byteBudget struct {
	mu   sync.Mutex
	free int64
}

func (b *byteBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.free {
		return false
	}
	b.free -= n
	return true
}

func (b *byteBudget) give(n int64) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
}

func acquire(r *http.Request, slots chan struct{}, wait time.Duration) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-r.Context().Done():
		return false
	}
}

// refuse answers code with a JSON error and closes the connection (so net/http
// does not first wait for the rest of a body); a 503 says when to come back.
func (l *limiter) refuse(w http.ResponseWriter, code int, msg string) {
	h := w.Header()
	h.Set("Connection", "close")
	if code == http.StatusServiceUnavailable {
		h.Set("Retry-After", "1")
	}
	if rf, ok := l.h.(Refuser); ok {
		rf.Refuse(w, code, msg)
		return
	}
	body, _ := json.Marshal(map[string]string{"error": msg})
	h.Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(body, '\n'))
}
