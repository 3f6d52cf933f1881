package freeport

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFreePortIsBindableAndNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p, err := Get()
		require.NoError(t, err)
		require.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
	}
	p, err := Get()
	require.NoError(t, err)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	require.NoError(t, err, "a port from FreePort must be bindable at once")
	require.NoError(t, l.Close())
}
