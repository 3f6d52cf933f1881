package freeport

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGetBelowStaysUnderTheLimitAndNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p, err := GetBelow(32768)
		require.NoError(t, err)
		require.GreaterOrEqual(t, p, lowBase)
		require.Less(t, p, 32768)
		require.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
	}
	p, err := GetBelow(32768)
	require.NoError(t, err)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	require.NoError(t, err, "a port from GetBelow must be bindable at once")
	require.NoError(t, l.Close())
}

func TestGetBelowSkipsPortsInUse(t *testing.T) {
	// A limit one above the base leaves exactly one candidate: taken, so no port is found.
	l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(lowBase)))
	if err != nil {
		t.Skipf("port %d is busy here: %v", lowBase, err)
	}
	defer l.Close()
	_, err = GetBelow(lowBase + 1)
	require.ErrorContains(t, err, "no free port")
	_, err = GetBelow(1024)
	require.ErrorContains(t, err, "limit must be")
}
