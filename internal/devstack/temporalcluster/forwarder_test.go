package temporalcluster

import (
	"bufio"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nameServer answers every line with its name, so a client can tell which backend it reached.
type nameServer struct {
	name string
	ln   net.Listener
	mu   sync.Mutex
	open []net.Conn
}

func startNameServer(t *testing.T, name string) *nameServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &nameServer{name: name, ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.open = append(s.open, c)
			s.mu.Unlock()
			go func() {
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					_, _ = c.Write([]byte(s.name + "\n"))
				}
			}()
		}
	}()
	t.Cleanup(s.kill)
	return s
}

// kill closes the listener and every connection, as a dying process's kernel does.
func (s *nameServer) kill() {
	_ = s.ln.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.open {
		_ = c.Close()
	}
}

func ask(t *testing.T, c net.Conn) (string, error) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("who\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return "", err
	}
	return line[:len(line)-1], nil
}

func TestForwarderRoundRobinsAndSkipsDeadNodes(t *testing.T) {
	a, b := startNameServer(t, "a"), startNameServer(t, "b")
	var mu sync.Mutex
	live := []string{a.ln.Addr().String(), b.ln.Addr().String()}
	f, err := listenForwarder("127.0.0.1:0", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), live...)
	})
	require.NoError(t, err)
	defer f.close()

	seen := map[string]int{}
	var conns []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", f.Addr())
		require.NoError(t, err)
		conns = append(conns, c)
		name, err := ask(t, c)
		require.NoError(t, err)
		seen[name]++
	}
	assert.Equal(t, map[string]int{"a": 2, "b": 2}, seen, "round-robin per connection")

	// a dies without the forwarder being told: its clients are cut and reconnect to b.
	a.kill()
	for _, c := range conns {
		if name, err := ask(t, c); err == nil {
			assert.Equal(t, "b", name)
		}
		_ = c.Close()
	}
	for range 3 {
		c, err := net.Dial("tcp", f.Addr())
		require.NoError(t, err)
		name, err := ask(t, c)
		require.NoError(t, err, "a refused connection falls through to the next node")
		assert.Equal(t, "b", name)
		_ = c.Close()
	}

	// No node serves: connections are closed at once, and the client retries later.
	mu.Lock()
	live = nil
	mu.Unlock()
	c, err := net.Dial("tcp", f.Addr())
	require.NoError(t, err)
	_, err = ask(t, c)
	assert.Error(t, err)
	_ = c.Close()
}

func TestForwarderCloseCutsForwardedConnections(t *testing.T) {
	s := startNameServer(t, "a")
	f, err := listenForwarder("127.0.0.1:0", func() []string { return []string{s.ln.Addr().String()} })
	require.NoError(t, err)
	c, err := net.Dial("tcp", f.Addr())
	require.NoError(t, err)
	defer c.Close()
	_, err = ask(t, c)
	require.NoError(t, err)
	require.NoError(t, f.close())
	_, err = ask(t, c)
	assert.Error(t, err)
	_, err = net.DialTimeout("tcp", f.Addr(), time.Second)
	assert.Error(t, err, "closed forwarder listens no more")
}
