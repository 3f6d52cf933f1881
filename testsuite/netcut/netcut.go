// Package netcut is a loopback TCP proxy that can cut the network the way a lost host does:
// the client side goes away while the server never sees the connection close.
package netcut

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards connections from Addr to a target until it is severed.
type Proxy struct {
	Addr    string
	target  string
	ln      net.Listener
	mu      sync.Mutex
	severed bool
	clients []net.Conn
	servers []net.Conn
	wg      sync.WaitGroup
}

// Start listens on a free loopback port and forwards to target; it closes with the test.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("netcut: listen: %v", err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.severed {
			p.mu.Unlock()
			c.Close()
			s.Close()
			continue
		}
		p.clients, p.servers = append(p.clients, c), append(p.servers, s)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(s, c)
		go p.pipe(c, s)
	}
}

// pipe copies src to dst. Once severed it closes nothing on the server side: no FIN, no
// RST ever reaches the server, whose session then looks alive, as with a vanished host.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	p.mu.Lock()
	severed := p.severed
	p.mu.Unlock()
	if !severed {
		// An ordinary close on either side is passed on.
		dst.Close()
		src.Close()
	}
}

// Sever stops forwarding: new connections are refused and the client sides are closed,
// while the server-side connections stay open until Close.
func (p *Proxy) Sever() {
	p.mu.Lock()
	p.severed = true
	clients := p.clients
	p.mu.Unlock()
	p.ln.Close()
	for _, c := range clients {
		c.Close()
	}
}

// Connections is how many connections the proxy has forwarded so far.
func (p *Proxy) Connections() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.clients)
}

// Close closes everything, server sides included, and waits for the forwarding goroutines.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.severed = true
	conns := append(append([]net.Conn{}, p.clients...), p.servers...)
	p.mu.Unlock()
	_ = p.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
}
