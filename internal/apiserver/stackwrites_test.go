package apiserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// Reading a stack's releases, cutting a release, pointing a channel, previewing a stack across every tenant and undoing a
// rollout are each a decision of the default policy on the signed-in person: alice, a member of
// tenant acme, is refused with 403 naming why, and nothing reaches Temporal (the server's client
// points at a closed port). The stack requests are decided as the StackWorkflow decides them:
// operation stack (read for the releases' read), every tenant, the stack as the name.
func TestStackWritesAreDecidedOnThePerson(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	var c checks
	url := serve(t, p, c.authorize())
	alice, err := p.SignIn(t.Context(), "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	for _, tc := range []struct{ path, body, op, tenant, name string }{
		{"/v1/stacks/web/releases", "", "read", "", "web"},
		{"/v1/stacks/web/releases", `{"version":"1.2.0","notes":"faster"}`, "stack", "", "web"},
		{"/v1/stacks/web/releases", `{"version":"1.2.0","notes":"faster","from":"0123456789abcdef0123456789abcdef01234567"}`, "stack", "", "web"},
		{"/v1/stacks/web/channels/stable", `{"version":"1.2.0","default":true}`, "stack", "", "web"},
		{"/v1/stacks/web/channels/dev", `{"version":"head"}`, "stack", "", "web"},
		{"/v1/stacks/web/previews", `{"id":"p-1","to":"1.2.0"}`, "plan", "", ""},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","batchSize":2}`, "stack", "", "web"},
	} {
		method := http.MethodPost
		if tc.body == "" {
			method = http.MethodGet // the releases' read
		}
		a := callBody(t, method, url+tc.path, alice.IDToken, tc.body)
		require.Equal(t, http.StatusForbidden, a.code, "%s: %v", tc.path, a.body)
		require.Equal(t, "denied", a.body["kind"], tc.path)
		require.Contains(t, a.body["detail"], "alice may not", tc.path)
		got := c.take()
		require.Len(t, got, 1, tc.path)
		require.Equal(t, tc.op, got[0].Operation, tc.path)
		require.Equal(t, tc.tenant, got[0].Tenant, tc.path)
		require.Equal(t, tc.name, got[0].Name, tc.path)
		require.Equal(t, "alice", got[0].Actor.Name, tc.path)
	}
}

// Bad input to the stack writes is refused with 400 naming the field, before the policy or
// Temporal is asked.
func TestStackWritesRefuseBadInput(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	var c checks
	url := serve(t, p, c.authorize())
	carol, err := p.SignIn(t.Context(), "carol", oidcprovider.Password("carol"))
	require.NoError(t, err)
	for _, tc := range []struct{ path, body, field string }{
		{"/v1/stacks/web/releases", `{"version":"1.2","notes":"x"}`, "version: "},
		{"/v1/stacks/web/releases", `{"version":"1.2.0"}`, "notes: "},
		{"/v1/stacks/web/releases", `{"version":"1.2.0","notes":"x","from":"main"}`, "from: "},
		{"/v1/stacks/web/releases", `{"version":"1.2.0","notes":"x","cutBy":"mallory"}`, "cutBy: "},
		{"/v1/stacks/web/releases", `{"version":"1.2.0","notes":"x","id":"Not A Label"}`, "id: "},
		{"/v1/stacks/Web/releases", `{"version":"1.2.0","notes":"x"}`, "stack: "},
		{"/v1/stacks/web/channels/1.2.0", `{"version":"1.2.0"}`, "channel: "},
		{"/v1/stacks/web/channels/stable", `{"version":"latest"}`, "version: "},
		{"/v1/stacks/web/previews", `{"id":"p-1","to":"1.2.0","requester":{"kind":"person","issuer":"x","name":"alice"}}`, "requester: only slipway sets it"},
		{"/v1/stacks/web/previews", `{"id":"p-1","to":""}`, "to: "},
		{"/v1/stacks/web/previews", `{"to":"1.2.0"}`, "id: "},
		{"/v1/stacks/web/previews", `{"id":"p-1","to":"1.2.0","concurrency":65}`, "concurrency: 65"},
		{"/v1/stacks/web/previews", `{"id":"p-1","to":"1.2.0","stack":"db"}`, "stack: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2","by":"2099-01-15"}`, "min: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2020-01-15"}`, "by: 2020-01-15T00:00:00Z: is not in the future"},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"soon"}`, "by: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","batchPercent":101}`, "batchPercent: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","batchSize":-1}`, "batchSize: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","batchSize":2,"batchPercent":10}`, "batchPercent: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","id":"Not A Label"}`, "id: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","cutBy":"mallory"}`, "cutBy: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","setBy":"mallory"}`, "setBy: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","requester":{"kind":"person","issuer":"x","name":"alice"}}`, "requester: "},
		{"/v1/stacks/web/deadlines", `{"min":"1.2.0","by":"2099-01-15","waves":[{"tenant":"acme","instances":["acme/web"]}]}`, "waves: "},
		{"/v1/stacks/Web/deadlines", `{"min":"1.2.0","by":"2099-01-15"}`, "stack: "},
		{"/v1/rollouts/r-1/undo", `{"id":"R 2"}`, "id: "},
		{"/v1/rollouts/r-1/undo", `{"id":"deadline-1a2b3c4d-1"}`, "id: "},
		{"/v1/rollouts", `{"id":"deadline-1a2b3c4d-1","stack":"web","to":"1.2.0"}`, "id: "},
	} {
		a := callBody(t, http.MethodPost, url+tc.path, carol.IDToken, tc.body)
		require.Equal(t, http.StatusBadRequest, a.code, "%s %s: %v", tc.path, tc.body, a.body)
		require.True(t, strings.HasPrefix(a.body["detail"].(string), tc.field), "%s: %v names %q", tc.path, a.body["detail"], tc.field)
		require.Empty(t, c.take(), "%s: refused before the policy is asked", tc.path)
	}
	a := callBody(t, http.MethodGet, url+"/v1/stacks/web/status?tenant=Acme", carol.IDToken, "")
	require.Equal(t, http.StatusBadRequest, a.code, "%v", a.body)
	require.True(t, strings.HasPrefix(a.body["detail"].(string), "tenant: "), "%v", a.body["detail"])
	require.Empty(t, c.take())
}

// A stack's status for one tenant is a read of that tenant, decided first: alice (acme) asking
// for tenant other's is refused with 403, and nothing reaches Temporal.
func TestStackStatusOfATenantIsARead(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	var c checks
	url := serve(t, p, c.authorize())
	alice, err := p.SignIn(t.Context(), "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	a := callBody(t, http.MethodGet, url+"/v1/stacks/web/status?tenant=other", alice.IDToken, "")
	require.Equal(t, http.StatusForbidden, a.code, "%v", a.body)
	require.Contains(t, a.body["detail"], "alice may not")
	got := c.take()
	require.Len(t, got, 1)
	require.Equal(t, "read", got[0].Operation)
	require.Equal(t, "other", got[0].Tenant)
}
