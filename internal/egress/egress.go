// Package egress makes the HTTP clients that call where a stack or the operator points: http
// hooks and notification sinks. They refuse loopback, private, link-local and unspecified
// addresses as they dial, after DNS, so a name that resolves (or is rebound) to an internal
// address is refused too, unless the operator allows it; and they follow no redirect.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// Policy is which internal addresses a client may still reach.
type Policy struct {
	// Knob is the setting that allows more, named in every refusal.
	Knob  string
	Allow []netip.Prefix
}

// Parse reads a comma-separated list of CIDRs or addresses (an address is itself alone), as
// the operator writes it in knob, e.g. "10.1.2.0/24, 127.0.0.1".
func Parse(knob, raw string) (Policy, error) {
	p := Policy{Knob: knob}
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if pfx, err := netip.ParsePrefix(f); err == nil {
			p.Allow = append(p.Allow, pfx.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return Policy{}, fmt.Errorf("%s: %q is not a CIDR (10.0.0.0/8) or an IP address", knob, f)
		}
		p.Allow = append(p.Allow, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return p, nil
}

// internal names what kind of non-public address a is, "" for a public one.
func internal(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsPrivate():
		return "private"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	for _, r := range reserved {
		if r.pfx.Contains(a) {
			return r.kind
		}
	}
	return ""
}

var reserved = []struct {
	pfx  netip.Prefix
	kind string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "NAT64"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},
}

// RefusedError is a connection the policy did not allow.
type RefusedError struct {
	Addr string // ip:port
	Kind string // loopback, private, ...
	Knob string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to connect to %s: a %s address (allow it explicitly with %s)", e.Addr, e.Kind, e.Knob)
}

// IsRefused says whether err is (or wraps) a refusal.
func IsRefused(err error) bool {
	_, ok := errors.AsType[*RefusedError](err)
	return ok
}

// Check refuses addr (ip:port, as a dialer is about to connect to it) when it is internal
// and neither the policy nor ctx (WithAllowed) allows it.
func (p Policy) Check(ctx context.Context, addr string) error {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return fmt.Errorf("refused to connect to %q: not an IP address and port", addr)
	}
	a := ap.Addr().Unmap()
	kind := internal(a)
	if kind == "" {
		return nil
	}
	extra, _ := ctx.Value(allowKey{}).([]netip.Prefix)
	for _, pfx := range append(append([]netip.Prefix(nil), p.Allow...), extra...) {
		if pfx.Contains(a) {
			return nil
		}
	}
	return &RefusedError{Addr: addr, Kind: kind, Knob: p.Knob}
}

type allowKey struct{}

// WithAllowed allows more addresses for the requests made with ctx: a notification sink whose
// URL the operator wrote with a literal IP address.
func WithAllowed(ctx context.Context, pfx ...netip.Prefix) context.Context {
	if len(pfx) == 0 {
		return ctx
	}
	return context.WithValue(ctx, allowKey{}, pfx)
}

// LiteralHost is the prefix of a URL host written as an IP address ("localhost" is loopback),
// so the operator who wrote it allowed it; none for a name.
func LiteralHost(host string) []netip.Prefix {
	h := strings.Trim(host, "[]")
	if strings.EqualFold(h, "localhost") {
		return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return []netip.Prefix{netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())}
	}
	return nil
}

// ErrRedirect is a redirect the client did not follow: it could lead anywhere.
var ErrRedirect = errors.New("redirects are not followed")

// Client returns an HTTP client that dials only what p allows, follows no redirect and uses no
// proxy (a proxy would dial for it, past the check). timeout 0 leaves calls to their context.
func (p Policy) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second,
		ControlContext: func(ctx context.Context, _, address string, _ syscall.RawConn) error {
			return p.Check(ctx, address)
		}}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = d.DialContext
	return &http.Client{Timeout: timeout, Transport: t,
		CheckRedirect: func(req *http.Request, _ []*http.Request) error {
			return fmt.Errorf("%w (the answer pointed to %s://%s)", ErrRedirect, req.URL.Scheme, req.URL.Host)
		}}
}
