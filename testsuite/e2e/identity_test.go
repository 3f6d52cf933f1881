package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

func startServer(t *testing.T, e *testsuite.Env, p *oidcprovider.Provider) string {
	return e.StartAPIServer(t, p.Issuer, p.ClientID)
}

// signIn signs user in through the provider's real login and consent pages.
func signIn(t *testing.T, p *oidcprovider.Provider, user string) string {
	t.Helper()
	tok, err := p.SignIn(t.Context(), user, oidcprovider.Password(user))
	require.NoError(t, err, "sign in %s", user)
	return tok.IDToken
}

// people is one test's world: the real provider, an env, a `slipway server` for it, and acme/web
// that alice created and deployed through the server.
type people struct {
	t                 *testing.T
	e                 *testsuite.Env
	p                 *oidcprovider.Provider
	url               string
	alice, bob, carol string
	secrets           map[string]string
}

const acmeWeb = "acme/web"

func newPeople(t *testing.T) *people {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	e := testsuite.NewEnv(t)
	w := &people{t: t, e: e, p: p, url: startServer(t, e, p)}
	w.alice, w.bob, w.carol = signIn(t, p, "alice"), signIn(t, p, "bob"), signIn(t, p, "carol")
	a := whoami(t, w.url, w.alice)
	require.Equal(t, identity.Person, a.Kind)
	require.Equal(t, "alice", a.Name)
	require.Equal(t, []string{"tenant:acme"}, a.Groups)
	require.Equal(t, "api", a.Via)

	// alice creates and deploys her tenant's instance through the server.
	inst := writeFile(t, "stack: example\nparameters:\n  greeting: hello\n  replicas: 1\n")
	w.as(w.alice, 0, "create", acmeWeb, "-f", inst, "--wait")
	out := w.as(w.alice, 0, "deploy", acmeWeb, "--wait")
	require.Contains(t, out.Stdout, acmeWeb+" is Deployed")
	var err error
	w.secrets, err = e.Activities.Secrets.Get(t.Context(), "acme", "web")
	require.NoError(t, err)
	require.Len(t, w.secrets, 2)
	return w
}

// as runs the real CLI through the server with tok and wants its exit code.
func (w *people) as(tok string, want int, args ...string) testsuite.Result {
	w.t.Helper()
	w.t.Setenv("SLIPWAY_TOKEN", tok)
	return w.e.MustCLI(want, append([]string{"--server", w.url}, args...)...)
}

// Through `slipway server`, people are who the real provider says, or nobody: alice (tenant acme)
// creates, deploys and reads the secrets of acme/web; bob (tenant other) is refused its secrets by
// the policy (exit 3, nothing printed); a token of another provider, an expired one and none at
// all are refused with exit 3 and a message saying which, and nothing changes.
func TestIdentityTokensThroughTheServer(t *testing.T) {
	w := newPeople(t)
	e := w.e
	require.Equal(t, secretLines(w.secrets), w.as(w.alice, 0, "secrets", acmeWeb).Stdout, "a tenant member reads her secrets through the server")
	r := w.as(w.bob, 3, "secrets", acmeWeb)
	require.Contains(t, r.Stderr, "denied by policy: bob may not secrets instances of tenant acme")
	for _, v := range w.secrets {
		require.NotContains(t, r.Stdout+r.Stderr, v)
	}

	before := e.Status(acmeWeb)
	short := oidcprovider.Start(t, oidcprovider.Options{IDTokenTTL: time.Second})
	foreign := signIn(t, short, "carol")
	r = w.as(foreign, 3, "deploy", acmeWeb)
	require.Contains(t, r.Stderr, "not signed in")
	require.Contains(t, r.Stderr, "not by the identity provider slipway trusts")
	shortURL := startServer(t, e, short)
	require.Eventually(t, func() bool {
		exp, err := identity.Expiry(foreign)
		return err == nil && time.Now().After(exp.Add(time.Second))
	}, 10*time.Second, 100*time.Millisecond)
	t.Setenv("SLIPWAY_TOKEN", foreign)
	r = e.MustCLI(3, "--server", shortURL, "destroy", acmeWeb)
	require.Contains(t, r.Stderr, "expired")
	require.Contains(t, r.Stderr, "slipway login")
	t.Setenv("SLIPWAY_TOKEN", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no cached sign-in
	r = e.MustCLI(3, "--server", w.url, "deploy", acmeWeb)
	require.Contains(t, r.Stderr, "slipway login", "no token at all says what to do")

	after := e.Status(acmeWeb)
	require.Equal(t, lifecycle.Deployed, after.State)
	require.Equal(t, before.Operation.ID, after.Operation.ID, "no operation ran")
	require.Empty(t, after.Gates)
}

// whoami asks the server who tok is.
func whoami(t *testing.T, url, tok string) identity.Actor {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url+"/v1/whoami", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var a identity.Actor
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	return a
}
