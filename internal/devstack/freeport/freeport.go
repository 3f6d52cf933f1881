// Package freeport hands out free loopback TCP ports, never the same one twice in a process.
package freeport

import (
	"fmt"
	"net"
	"sync"
)

// handedOut remembers ports this process already returned, so two servers started
// side by side never get the same one even if the kernel offers it twice.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// Get returns a TCP port on 127.0.0.1 that nothing listens on. The port is
// left in TIME_WAIT so the kernel does not hand it to another bind(0) caller for
// about a minute, while a process that binds it explicitly (SO_REUSEADDR) still can.
func Get() (int, error) {
	for range 20 {
		port, err := reservePort()
		if err != nil {
			return 0, err
		}
		handedOut.Lock()
		seen := handedOut.ports[port]
		handedOut.ports[port] = true
		handedOut.Unlock()
		if !seen {
			return port, nil
		}
	}
	return 0, fmt.Errorf("freeport: no fresh free port on 127.0.0.1 after 20 tries")
}

func reservePort() (int, error) {
	l, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return 0, fmt.Errorf("freeport: find a free port: %w", err)
	}
	defer l.Close()
	addr := l.Addr().(*net.TCPAddr)
	c, err := net.DialTCP("tcp4", nil, addr)
	if err != nil {
		return 0, fmt.Errorf("freeport: find a free port: %w", err)
	}
	defer c.Close()
	s, err := l.AcceptTCP()
	if err != nil {
		return 0, fmt.Errorf("freeport: find a free port: %w", err)
	}
	// Closing the accepted side first puts the listening port itself into TIME_WAIT.
	_ = s.Close()
	return addr.Port, nil
}
