package e2e

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/webhook"
	"github.com/slipway-dev/slipway/testsuite"
)

// Attack (a network peer, no secret): the webhook server bounded what each client address holds
// (32 bodies arriving of up to 1 MiB, 128 connections) but not the total (358 MiB held before the
// shared budget of bodies arriving). A peer with many
// addresses (the whole of 127.0.0.0/8 here; on the internet, an IPv6 host given a /56 or /48, so
// 256 or 65,536 /64s) sends well-formed GitHub headers, which Admit lets in, and then almost all
// of a 1 MiB body, and holds it until the read timeout: the server buffers 32 MiB per address,
// with nothing signed. Here 8 addresses hold 256 bodies; the server may hold at most a bounded
// total (2 x --max-concurrent here) whatever the number of addresses.
func TestAttackWebhookBodiesFromManyAddressesAreBoundedInTotal(t *testing.T) {
	e := testsuite.NewEnv(t)
	h, err := webhook.New(webhook.Options{Forges: map[string]webhook.ForgeOptions{"github": {Secret: []byte("s"), Repos: []string{floodRepo}}}}, e.Client)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpserve.Serve(ctx, ln, h, httpserve.WithReadTimeout(20*time.Second)) }()
	t.Cleanup(func() { stop(); <-served; h.Close() })

	const addrs, body, sent = 8, 1 << 20, 1<<20 - 1
	head := "POST /github HTTP/1.1\r\nHost: hooks.example\r\nX-GitHub-Event: push\r\nX-GitHub-Delivery: d\r\nX-Hub-Signature-256: sha256=" +
		strings.Repeat("0", 64) + fmt.Sprintf("\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", body)
	request := []byte(head + strings.Repeat("x", sent)) // all but the last byte
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var conns []net.Conn
	for a := range addrs {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(10+a))}}
		for range httpserve.DefaultMaxPerClient {
			c, err := d.Dial("tcp", ln.Addr().String())
			require.NoError(t, err)
			conns = append(conns, c)
			_, err = c.Write(request)
			require.NoError(t, err)
		}
	}
	t.Cleanup(func() {
		for _, c := range conns {
			_ = c.Close()
		}
	})
	time.Sleep(2 * time.Second)
	var after runtime.MemStats
	runtime.GC() // what is held, not the garbage the rest of the process made meanwhile
	runtime.ReadMemStats(&after)
	held := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("%d addresses x %d bodies of %d bytes held: heap grew by %d MiB", addrs, httpserve.DefaultMaxPerClient, sent, held>>20)
	require.Less(t, held, int64(2*httpserve.DefaultMaxConcurrent*body), "bodies held from many addresses are bounded in total")
}
