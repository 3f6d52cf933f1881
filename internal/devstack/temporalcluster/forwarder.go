package temporalcluster

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialTimeout is short: a node on loopback either accepts at once or is gone.
const dialTimeout = time.Second

// forwarder is the cluster's one stable frontend address: each accepted connection goes to
// the next live node, round-robin, so a client whose node dies reconnects to a survivor.
type forwarder struct {
	ln       net.Listener
	backends func() []string // frontends of the nodes that serve now, in a stable order
	next     atomic.Uint64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

func listenForwarder(addr string, backends func() []string) (*forwarder, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	f := &forwarder{ln: ln, backends: backends, conns: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go f.accept()
	return f, nil
}

// Addr is the host:port clients dial.
func (f *forwarder) Addr() string { return f.ln.Addr().String() }

func (f *forwarder) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			f.serve(c)
		}()
	}
}

// serve pipes c to the first live node that accepts, starting at the round-robin position.
func (f *forwarder) serve(c net.Conn) {
	backend := f.dial()
	if backend == nil {
		_ = c.Close() // no node serves: the client retries, as with a server that is down
		return
	}
	if !f.track(c, backend) {
		return
	}
	defer f.untrack(c, backend)
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		// Either side ending ends both: a dead node must not leave its clients hanging.
		_ = dst.Close()
		_ = src.Close()
		done <- struct{}{}
	}
	go pipe(backend, c)
	go pipe(c, backend)
	<-done
	<-done
}

func (f *forwarder) dial() net.Conn {
	addrs := f.backends()
	if len(addrs) == 0 {
		return nil
	}
	start := int(f.next.Add(1) % uint64(len(addrs)))
	for i := range addrs {
		if s, err := net.DialTimeout("tcp", addrs[(start+i)%len(addrs)], dialTimeout); err == nil {
			return s
		}
	}
	return nil
}

// track registers a live pair so close can cut it; false when the forwarder already closed.
func (f *forwarder) track(conns ...net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		f.conns[c] = struct{}{}
	}
	return true
}

func (f *forwarder) untrack(conns ...net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range conns {
		delete(f.conns, c)
	}
}

// close stops listening, cuts every forwarded connection and waits for the pipes.
func (f *forwarder) close() error {
	err := f.ln.Close()
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	return err
}
