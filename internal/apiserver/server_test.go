package apiserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// serve runs the API on a real loopback listener behind httpserve, verifying tokens against the
// real provider p. Its Temporal client points at a closed port: these requests never get that far.
func serve(t *testing.T, p *oidcprovider.Provider, authorize apiserver.Authorize) string {
	t.Helper()
	ver, err := identity.NewVerifier(t.Context(), p.Issuer, p.ClientID)
	require.NoError(t, err)
	c, err := client.DialLazy("nowhere", client.WithHostPort(closedPort(t)), client.WithKeyring(testKeyring(t)))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	if authorize == nil {
		authorize = func(context.Context, apiserver.Check) (bool, string, string, error) {
			return false, "", "", errors.New("not asked")
		}
	}
	api, err := apiserver.New(apiserver.Options{Verifier: ver, Client: c, Hosts: codec.ListenerHosts(ln.Addr()), Authorize: authorize,
		Secrets: func(context.Context, string, string) (map[string]string, error) {
			return map[string]string{"k": "v"}, nil
		}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpserve.Serve(ctx, ln, api, httpserve.WithShutdownGrace(time.Second)) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	return "http://" + ln.Addr().String()
}

func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func testKeyring(t *testing.T) *codec.Keyring {
	entry, err := codec.Generate("test")
	require.NoError(t, err)
	k, err := codec.Parse("test", entry)
	require.NoError(t, err)
	return k
}

type answer struct {
	code int
	body map[string]any
}

func call(t *testing.T, method, url, token string, hdr map[string]string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(`{}`))
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	a := answer{code: resp.StatusCode}
	_ = json.NewDecoder(resp.Body).Decode(&a.body)
	return a
}

// The server knows people only by a token the real provider signed for the CLI's client: none,
// garbage, another provider's (a foreign issuer) and an expired one are each refused with 401
// and a message saying which, before any request reaches Temporal; a signed-in person is who
// the token says, via "api".
func TestServerVerifiesTheBearerToken(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	other := oidcprovider.Start(t, oidcprovider.Options{IDTokenTTL: time.Second})
	url := serve(t, p, nil)

	alice, err := p.SignIn(t.Context(), "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	a := call(t, http.MethodGet, url+"/v1/whoami", alice.IDToken, nil)
	require.Equal(t, http.StatusOK, a.code, a.body)
	require.Equal(t, "alice", a.body["name"])
	require.Equal(t, "person", a.body["kind"])
	require.Equal(t, p.Issuer, a.body["issuer"])
	require.Equal(t, []any{"tenant:acme"}, a.body["groups"])
	require.Equal(t, "api", a.body["via"])

	foreign, err := other.SignIn(t.Context(), "carol", oidcprovider.Password("carol"))
	require.NoError(t, err)
	for name, tc := range map[string]struct{ token, want string }{
		"no token":       {"", "no bearer token"},
		"garbage":        {"not-a-jwt", "not an ID token"},
		"foreign issuer": {foreign.IDToken, "not by the identity provider slipway trusts"},
		"access token":   {alice.AccessToken, "not for client"},
	} {
		t.Run(name, func(t *testing.T) {
			for _, path := range []string{"/v1/whoami", "/v1/instances/acme/web/operations/deploy", "/v1/instances/acme/web/approvals/approve", "/v1/no-such-route"} {
				method := http.MethodPost
				if path == "/v1/whoami" || path == "/v1/no-such-route" {
					method = http.MethodGet // an unknown route is not told apart from a known one without a token
				}
				a := call(t, method, url+path, tc.token, nil)
				require.Equal(t, http.StatusUnauthorized, a.code, "%s %s: %v", method, path, a.body)
				require.Contains(t, a.body["detail"], tc.want)
				require.Contains(t, a.body["detail"], "not signed in")
			}
		})
	}

	// A token the trusted provider signed, once expired, is refused as expired. Five seconds: on a
	// loaded CI machine a one-second token expired between its sign-in and its first use.
	short := oidcprovider.Start(t, oidcprovider.Options{IDTokenTTL: 5 * time.Second})
	shortURL := serve(t, short, nil)
	tok, err := short.SignIn(t.Context(), "bob", oidcprovider.Password("bob"))
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, call(t, http.MethodGet, shortURL+"/v1/whoami", tok.IDToken, nil).code)
	exp, err := identity.Expiry(tok.IDToken)
	require.NoError(t, err)
	time.Sleep(time.Until(exp.Add(1100 * time.Millisecond))) // waits for the clock, asserts on the answer
	a = call(t, http.MethodGet, shortURL+"/v1/whoami", tok.IDToken, nil)
	require.Equal(t, http.StatusUnauthorized, a.code)
	require.Contains(t, a.body["detail"], "expired")
	require.Contains(t, a.body["detail"], "slipway login")
}

// A request for a Host the server does not answer to (a DNS-rebinding page) is refused, token or not.
func TestServerRefusesAForeignHost(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	url := serve(t, p, nil)
	alice, err := p.SignIn(t.Context(), "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	a := call(t, http.MethodGet, url+"/v1/whoami", alice.IDToken, map[string]string{"Host": "evil.example:80"})
	require.Equal(t, http.StatusForbidden, a.code)
	require.Contains(t, a.body["detail"], "host not allowed")
	require.Equal(t, http.StatusOK, call(t, http.MethodGet, url+"/v1/whoami", alice.IDToken, map[string]string{"Host": "localhost"}).code)
}
