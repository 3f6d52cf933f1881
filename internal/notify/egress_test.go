package notify

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sink named by a host name that resolves to an internal address (as a rebound DNS name
// would) is refused as the Sender dials, naming the address and SLIPWAY_NOTIFY_ALLOW_CIDRS;
// the operator's allow-list lets it through. The same address written literally is allowed.
func TestSinkNamedByAnInternalNameIsRefusedAtDial(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	addrs, err := net.LookupHost(host)
	if err != nil || len(addrs) == 0 || !netip.MustParseAddr(addrs[0]).IsLoopback() {
		t.Skipf("this host's name %q does not resolve to loopback (%v %v)", host, addrs, err)
	}
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted handshakes below
	srv.StartTLS()
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	sink := sinkFor(t, SinkWebhook, "https://"+host+":"+port+"/hook")

	err = NewSender().Deliver(context.Background(), sink, failedEvent())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refused to connect to "+addrs[0]+":"+port+": a loopback address (allow it explicitly with SLIPWAY_NOTIFY_ALLOW_CIDRS)")
	assert.Zero(t, hits.Load())

	allowed, err := ParseAllowed(addrs[0])
	require.NoError(t, err)
	err = NewSender(WithAllowed(allowed)).Deliver(context.Background(), sink, failedEvent())
	require.Error(t, err, "the test server's certificate is not trusted")
	assert.NotContains(t, err.Error(), "refused to connect", "allowed, it was dialled: TLS is what fails")

	literal := sinkFor(t, SinkWebhook, srv.URL+"/hook")
	err = NewSender().Deliver(context.Background(), literal, failedEvent())
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "refused to connect", "the operator wrote the address itself")
}
