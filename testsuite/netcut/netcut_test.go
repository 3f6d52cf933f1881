package netcut

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSeverClosesTheClientAndLeavesTheServerSessionOpen(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	p := Start(t, ln.Addr().String())

	client, err := net.Dial("tcp", p.Addr)
	require.NoError(t, err)
	defer client.Close()
	server := <-accepted
	require.NotNil(t, server)
	defer server.Close()
	_, err = client.Write([]byte("ping"))
	require.NoError(t, err)
	buf := make([]byte, 4)
	_, err = io.ReadFull(server, buf)
	require.NoError(t, err)
	require.Equal(t, "ping", string(buf))

	p.Sever()
	_, err = client.Read(buf)
	require.Error(t, err, "the client side is closed")
	// The server sees neither data nor a close: its read only runs into the deadline.
	require.NoError(t, server.SetReadDeadline(time.Now().Add(300*time.Millisecond)))
	_, err = server.Read(buf)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	_, err = net.Dial("tcp", p.Addr)
	require.Error(t, err, "a severed proxy takes no new connections")

	p.Close()
	require.NoError(t, server.SetReadDeadline(time.Time{}))
	_, err = server.Read(buf)
	require.True(t, errors.Is(err, io.EOF), "Close finally closes the server side: %v", err)
}
