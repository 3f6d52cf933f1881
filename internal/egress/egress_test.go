package egress

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	p, err := Parse("SLIPWAY_HOOK_ALLOW_CIDRS", " 10.1.2.3/24, 127.0.0.1 ,,::1")
	require.NoError(t, err)
	assert.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.1.2.0/24"), netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}, p.Allow)
	_, err = Parse("SLIPWAY_HOOK_ALLOW_CIDRS", "10.0.0.0/8,intranet")
	assert.EqualError(t, err, `SLIPWAY_HOOK_ALLOW_CIDRS: "intranet" is not a CIDR (10.0.0.0/8) or an IP address`)
}

func TestCheck(t *testing.T) {
	p := Policy{Knob: "K"}
	for addr, kind := range map[string]string{
		"127.0.0.1:80": "loopback", "[::1]:80": "loopback", "[::ffff:127.0.0.1]:80": "loopback",
		"10.0.0.1:80": "private", "172.16.0.1:80": "private", "192.168.1.1:80": "private", "[fd00::1]:80": "private",
		"169.254.169.254:80": "link-local", "[fe80::1]:80": "link-local", "0.0.0.0:80": "unspecified", "[::]:80": "unspecified",
		"100.64.0.1:80": "shared (carrier-grade NAT)", "[64:ff9b::a00:1]:80": "NAT64",
	} {
		err := p.Check(context.Background(), addr)
		require.Error(t, err, addr)
		assert.Contains(t, err.Error(), "a "+kind+" address (allow it explicitly with K)", addr)
	}
	assert.NoError(t, p.Check(context.Background(), "93.184.215.14:443"))
	assert.NoError(t, p.Check(context.Background(), "[2606:4700::1]:443"))

	allowed := Policy{Knob: "K", Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16")}}
	assert.NoError(t, allowed.Check(context.Background(), "10.1.2.3:80"))
	assert.Error(t, allowed.Check(context.Background(), "10.2.0.1:80"))
	ctx := WithAllowed(context.Background(), LiteralHost("127.0.0.1")...)
	assert.NoError(t, p.Check(ctx, "127.0.0.1:9"))
	assert.Error(t, p.Check(ctx, "127.0.0.2:9"), "only the literal address")
}

// A loopback service is refused at dial time, also when reached by a name that resolves to it
// (as a rebound DNS name would), and its answer is never read.
func TestClientRefusesInternalAddressesWhenItDials(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("internal secret"))
	}))
	defer srv.Close()
	c := Policy{Knob: "SLIPWAY_HOOK_ALLOW_CIDRS"}.Client(0)
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
		resp, err := c.Post(u+"/admin/flush", "application/json", nil)
		require.Error(t, err, u)
		assert.Nil(t, resp)
		assert.True(t, IsRefused(err), "%v", err)
		assert.Contains(t, err.Error(), "a loopback address (allow it explicitly with SLIPWAY_HOOK_ALLOW_CIDRS)")
	}
	assert.Zero(t, hits.Load(), "nothing reached the service")

	ok, err := Parse("SLIPWAY_HOOK_ALLOW_CIDRS", "127.0.0.1")
	require.NoError(t, err)
	resp, err := ok.Client(0).Post(srv.URL, "application/json", nil)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, int32(1), hits.Load(), "allowed explicitly, it is reached")
}

// A redirect is never followed, wherever it points.
func TestClientFollowsNoRedirect(t *testing.T) {
	var inner atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { inner.Add(1) }))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/admin", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	p, err := Parse("K", "127.0.0.1")
	require.NoError(t, err)
	_, err = p.Client(0).Post(redirector.URL, "application/json", nil)
	require.ErrorIs(t, err, ErrRedirect)
	assert.Contains(t, err.Error(), "redirects are not followed (the answer pointed to http://"+strings.TrimPrefix(target.URL, "http://")+")")
	assert.Zero(t, inner.Load())
}
