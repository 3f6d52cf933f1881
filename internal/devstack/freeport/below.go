package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"syscall"
)

// lowBase is the bottom of the range GetBelow picks from: above the well-known and most
// registered service ports a developer box runs (PostgreSQL 5432, Temporal 7233, UI 8233).
const lowBase = 15000

// GetBelow returns a free TCP port on 127.0.0.1 in [15000, limit), never one this process
// handed out before. It is for servers that cannot take a port from the kernel's ephemeral
// range (Temporal stores membership ports in a SMALLINT column); that range starts at
// 32768 on Linux, so a port below it is not handed to an outgoing connection meanwhile.
func GetBelow(limit int) (int, error) {
	if limit <= lowBase || limit > 65536 {
		return 0, fmt.Errorf("freeport: GetBelow(%d): limit must be in %d-65536", limit, lowBase+1)
	}
	for range 200 {
		port := lowBase + rand.IntN(limit-lowBase)
		handedOut.Lock()
		seen := handedOut.ports[port]
		handedOut.Unlock()
		if seen {
			continue
		}
		free, err := bindable(port)
		if err != nil {
			return 0, err
		}
		if !free {
			continue
		}
		handedOut.Lock()
		seen = handedOut.ports[port]
		handedOut.ports[port] = true
		handedOut.Unlock()
		if !seen {
			return port, nil
		}
	}
	return 0, fmt.Errorf("freeport: no free port on 127.0.0.1 below %d after 200 tries", limit)
}

// bindable reports whether a listener can bind 127.0.0.1:port right now.
func bindable(port int) (bool, error) {
	l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EACCES) {
			return false, nil
		}
		return false, fmt.Errorf("freeport: probe port %d: %w", port, err)
	}
	_ = l.Close()
	return true, nil
}
