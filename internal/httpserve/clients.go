package httpserve

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"sync"
)

// clientKey is what a client's share is counted against: its IP address, or for
// IPv6 its /64, since one host is commonly given a whole /64.
func clientKey(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// tally counts what each client holds (connections, or requests being read).
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func newTally() *tally { return &tally{n: map[string]int{}} }

// take counts one more for key unless key already holds max; held is key's count after it.
func (t *tally) take(key string, max int) (held int, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[key] >= max {
		return t.n[key], false
	}
	t.n[key]++
	return t.n[key], true
}

func (t *tally) give(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[key]--; t.n[key] <= 0 {
		delete(t.n, key)
	}
}

func (t *tally) held(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n[key]
}

// clientListener marks a new connection over its client's share of max open
// connections, so that its request is answered 503 with Retry-After rather than
// reset (a forge records a reset delivery as failed and does not retry it); one
// over twice the share is closed at once, so one address cannot pile up
// connections that wait for their headers.
type clientListener struct {
	net.Listener
	conns  *tally
	max    int
	refuse func(key string)
}

func (l *clientListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := clientKey(c.RemoteAddr().String())
		held, ok := l.conns.take(key, 2*l.max)
		if !ok {
			_ = c.Close()
			l.refuse(key)
			continue
		}
		return &countedConn{Conn: c, over: held > l.max, release: func() { l.conns.give(key) }}, nil
	}
}

// countedConn gives its client's count back once, however often it is closed.
type countedConn struct {
	net.Conn
	over    bool // over its client's share: its requests are refused with 503
	once    sync.Once
	release func()
}

// CloseWrite lets net/http send its FIN before closing a connection with a body
// left unread, so the client reads the answer rather than a reset.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

type overShareKey struct{}

// markOverShare is the server's ConnContext: a request on a connection over its
// client's share finds that in its context.
func markOverShare(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if cc, ok := c.(*countedConn); ok && cc.over {
		return context.WithValue(ctx, overShareKey{}, true)
	}
	return ctx
}

func overShare(r *http.Request) bool { return r.Context().Value(overShareKey{}) != nil }

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
