package apiserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/policy"
)

func person(name string, groups ...string) identity.Actor {
	return identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "u-" + name, Name: name, Groups: groups, Via: "api"}
}

// A fleet read keeps, under the default policy, only the rows of the tenants the person may read
// (alice: acme; carol: all of them and the fleet's own rows; bob's tenant has none here; mallory:
// nothing), and asks the policy once per tenant.
func TestFleetReadsKeepOnlyReadableTenants(t *testing.T) {
	asked := map[string]int{}
	decide := PolicyAuthorize(policy.Default())
	s := &Server{log: zap.NewNop(), o: Options{Authorize: func(ctx context.Context, c Check) (bool, string, string, error) {
		asked[c.Actor.Name+" "+c.Tenant]++
		return decide(ctx, c)
	}}}
	items := []client.ListItem{{Tenant: "acme", Name: "web"}, {Tenant: "third", Name: "db"}, {Tenant: "acme", Name: "api"}}
	outcomes := []contract.DeliveryOutcome{{Instance: "acme/web"}, {Instance: "third/db"}, {Instance: ""}}
	for _, tc := range []struct {
		who      identity.Actor
		items    []string
		outcomes []string
		fleet    bool
	}{
		{person("alice", "tenant:acme"), []string{"acme/web", "acme/api"}, []string{"acme/web"}, false},
		{person("bob", "tenant:other"), []string{}, []string{}, false},
		{person("mallory"), []string{}, []string{}, false},
		{person("carol", "platform-admins"), []string{"acme/web", "third/db", "acme/api"}, []string{"acme/web", "third/db", ""}, true},
	} {
		rd := s.readable(t.Context(), tc.who)
		got, err := keep(rd, items, func(it client.ListItem) string { return it.Tenant })
		require.NoError(t, err)
		refs := []string{}
		for _, it := range got {
			refs = append(refs, it.Tenant+"/"+it.Name)
		}
		require.Equal(t, tc.items, refs, tc.who.Name)
		kept, err := keep(rd, outcomes, func(o contract.DeliveryOutcome) string { return tenantOf(o.Instance) })
		require.NoError(t, err)
		insts := []string{}
		for _, o := range kept {
			insts = append(insts, o.Instance)
		}
		require.Equal(t, tc.outcomes, insts, tc.who.Name)
		fleet, err := rd.Tenant("")
		require.NoError(t, err)
		require.Equal(t, tc.fleet, fleet, tc.who.Name)
		require.Equal(t, 1, asked[tc.who.Name+" acme"], "one decision per tenant and request")
	}
	require.Equal(t, []string{"acme", "other"}, planTenants(contract.RolloutPlan{Actions: []contract.RolloutAction{
		{Ref: contract.Ref{Tenant: "other", Name: "a"}}, {Ref: contract.Ref{Tenant: "acme", Name: "b"}}, {Ref: contract.Ref{Tenant: "other", Name: "c"}}}}))
}

// stack status through the server counts only the tenants the person may read and says how many
// it left out: alice (acme) gets acme's counts and one hidden tenant; carol every tenant's.
func TestStackStatusCountsOnlyReadableTenants(t *testing.T) {
	s := &Server{log: zap.NewNop(), o: Options{Authorize: PolicyAuthorize(policy.Default())}}
	items := []client.ListItem{
		{Tenant: "acme", Name: "web", Release: "web@1.0.0", Ready: "True"},
		{Tenant: "other", Name: "web", Release: "web@1.0.0", Ready: "True"},
		{Tenant: "other", Name: "db", Release: "web@1.1.0"},
		{Tenant: "acme", Name: "api", Release: "web@1.1.0"},
	}
	out, shown, err := s.skew(t.Context(), person("alice", "tenant:acme"), items)
	require.NoError(t, err)
	require.Equal(t, []client.ReleaseCount{{Release: "web@1.0.0", Tenant: "acme", Total: 1, Ready: 1}, {Release: "web@1.1.0", Tenant: "acme", Total: 1}}, out.Counts)
	require.Equal(t, 1, out.HiddenTenants)
	require.Len(t, shown, 2, "the deadlines' progress counts only what is shown")
	out, shown, err = s.skew(t.Context(), person("carol", "platform-admins"), items)
	require.NoError(t, err)
	require.Len(t, out.Counts, 4)
	require.Zero(t, out.HiddenTenants)
	require.Len(t, shown, 4)
	out, _, err = s.skew(t.Context(), person("mallory"), nil)
	require.NoError(t, err)
	require.NotNil(t, out.Counts, "an empty skew is [], as stack status -o json prints it")
}

// `list --retrying` through the server lists only Retrying instances: the client sends the filter
// and the server reads it (it was dropped on the way, so every readable instance came back).
func TestListRetryingFilterReachesTheServer(t *testing.T) {
	var got url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Query()
		_, _ = w.Write([]byte("[]"))
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, func(context.Context) (string, error) { return "tok", nil })
	require.NoError(t, err)
	_, err = c.List(t.Context(), client.ListFilter{Tenant: "acme", Retrying: true})
	require.NoError(t, err)
	f, err := listFilter(got)
	require.NoError(t, err)
	require.True(t, f.Retrying, "query %v", got)
	_, err = listFilter(url.Values{"retrying": {"yes"}})
	require.ErrorContains(t, err, "retrying")
}
