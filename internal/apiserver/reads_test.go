package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// checks records each decision the server asks of the default policy.
type checks struct {
	mu  sync.Mutex
	got []apiserver.Check
}

func (c *checks) authorize() apiserver.Authorize {
	decide := apiserver.PolicyAuthorize(policy.Default())
	return func(ctx context.Context, ch apiserver.Check) (bool, string, string, error) {
		c.mu.Lock()
		c.got = append(c.got, ch)
		c.mu.Unlock()
		return decide(ctx, ch)
	}
}

func (c *checks) take() []apiserver.Check {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.got
	c.got = nil
	return out
}

func callBody(t *testing.T, method, url, token, body string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	a := answer{code: resp.StatusCode}
	_ = json.NewDecoder(resp.Body).Decode(&a.body)
	return a
}

// Every read of a named instance is a decision of the policy (operation read), asked before
// anything about the instance is read: bob (another tenant) and mallory (no group) get 403 naming
// the tenant for acme/web's status (any detail), events, a request's end and a plan, and the
// server never reaches Temporal (its client points at a closed port).
func TestNamedReadsAreDecidedFirst(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	var c checks
	url := serve(t, p, c.authorize())
	for _, user := range []string{"bob", "mallory"} {
		tok, err := p.SignIn(t.Context(), user, oidcprovider.Password(user))
		require.NoError(t, err)
		for _, r := range []struct{ method, path string }{
			{http.MethodGet, "/v1/instances/acme/web/status"},
			{http.MethodGet, "/v1/instances/acme/web/status?output=all"},
			{http.MethodGet, "/v1/instances/acme/web/events"},
			{http.MethodGet, "/v1/instances/acme/web/events?from=3&wait=1s"},
			{http.MethodGet, "/v1/instances/acme/web/requests/some-request"},
			{http.MethodPost, "/v1/instances/acme/web/operations/plan"},
			{http.MethodPost, "/v1/instances/acme/web/refresh"},
		} {
			a := callBody(t, r.method, url+r.path, tok.IDToken, `{}`)
			require.Equal(t, http.StatusForbidden, a.code, "%s %s %s: %v", user, r.method, r.path, a.body)
			require.Equal(t, "denied", a.body["kind"])
			require.Contains(t, a.body["detail"], user+" may not read instances of tenant acme")
			got := c.take()
			require.Len(t, got, 1, "%s %s", r.method, r.path)
			require.Equal(t, apiserver.OpRead, got[0].Operation)
			require.Equal(t, "acme", got[0].Tenant)
			require.Equal(t, "web", got[0].Name)
			require.Equal(t, user, got[0].Actor.Name)
		}
	}
}

// A drift request may not carry a sweep's own continuation state (scope.resume.left naming
// another tenant's instance would be checked, and deployed under remediate: deploy) nor the
// schedule slipway records, and its concurrency is bounded: each is refused with 400 naming the
// field, before the policy or Temporal is asked.
func TestDriftScopeRefusesFieldsPeopleMayNotSet(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	var c checks
	url := serve(t, p, c.authorize())
	alice, err := p.SignIn(t.Context(), "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	resume := `"resume":{"left":[{"ref":{"tenant":"other","name":"db"},"state":"Deployed"}],"checked":0,"drifted":0}`
	for name, tc := range map[string]struct{ path, body, field string }{
		"check resume":         {"/v1/drift/check", `{"tenant":"acme","remediate":"deploy",` + resume + `}`, "resume: "},
		"check schedule":       {"/v1/drift/check", `{"tenant":"acme","schedule":"drift/x"}`, "schedule: "},
		"check concurrency":    {"/v1/drift/check", `{"tenant":"acme","concurrency":65}`, "concurrency: 65: must be 1 to 64"},
		"check negative":       {"/v1/drift/check", `{"tenant":"acme","concurrency":-1}`, "concurrency: -1"},
		"check remediate":      {"/v1/drift/check", `{"tenant":"acme","remediate":"destroy"}`, "remediate: "},
		"check tenant":         {"/v1/drift/check", `{"tenant":"acme' OR Tenant = 'other"}`, "tenant: "},
		"schedule resume":      {"/v1/drift/schedules", `{"id":"x","every":3600000000000,"scope":{"tenant":"acme",` + resume + `}}`, "scope.resume: "},
		"schedule concurrency": {"/v1/drift/schedules", `{"id":"x","every":3600000000000,"scope":{"tenant":"acme","concurrency":1000}}`, "scope.concurrency: 1000"},
	} {
		t.Run(name, func(t *testing.T) {
			a := callBody(t, http.MethodPost, url+tc.path, alice.IDToken, tc.body)
			require.Equal(t, http.StatusBadRequest, a.code, a.body)
			require.Equal(t, "bad-request", a.body["kind"])
			require.True(t, strings.HasPrefix(a.body["detail"].(string), tc.field), "%v names %q", a.body["detail"], tc.field)
			require.Empty(t, c.take(), "refused before the policy is asked")
		})
	}
}
