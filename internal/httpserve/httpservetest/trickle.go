package httpservetest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Answer is how a trickling connection ended.
type Answer struct {
	Code    int   // 0: the server closed the connection without an answer
	Err     error // how the connection ended when there was no answer
	Elapsed time.Duration
}

// Trickle dials addr from the loopback address fromIP (so a server tells clients apart), sends
// head (a request's line and headers, announcing a body) and then one byte of body every
// interval until the server answers or hangs up, waiting at most wait for the answer. The
// answer arrives once on the returned channel; the connection closes with the test.
func Trickle(t *testing.T, fromIP, addr, head string, every, wait time.Duration) <-chan Answer {
	t.Helper()
	// Taken before the dial: the server may accept and start its read deadline before Dial returns.
	began := time.Now()
	conn, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(fromIP)}}).Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	answered := make(chan Answer, 1)
	stop := make(chan struct{})
	go func() {
		if _, err := io.WriteString(conn, head); err != nil {
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return // the server hung up
				}
			}
		}
	}()
	go func() {
		defer close(stop)
		_ = conn.SetReadDeadline(time.Now().Add(wait))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		a := Answer{Err: err, Elapsed: time.Since(began)}
		if err == nil {
			a.Code = resp.StatusCode
			resp.Body.Close()
		}
		answered <- a
	}()
	return answered
}
