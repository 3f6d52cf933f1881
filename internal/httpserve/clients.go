package httpserve

import (
	"net"
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

// take counts one more for key unless key already holds max.
func (t *tally) take(key string, max int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n[key] >= max {
		return false
	}
	t.n[key]++
	return true
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

// clientListener closes a new connection at once when its client already holds
// max open connections, so one address cannot pile up connections that wait
// for their headers.
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
		if !l.conns.take(key, l.max) {
			_ = c.Close()
			l.refuse(key)
			continue
		}
		return &countedConn{Conn: c, release: func() { l.conns.give(key) }}, nil
	}
}

// countedConn gives its client's count back once, however often it is closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
