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
