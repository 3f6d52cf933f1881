package cli

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// emcoResources are one instance's resources on two clusters, in the order a deployer lists
// them (not grouped), one cluster down (Retrying) and one resource removed (Terminated).
var emcoResources = []contract.Resource{
	{App: "web", Cluster: "edge-b", Version: "v1", Kind: "ConfigMap", Namespace: "acme-shop", Name: "app", RsyncStatus: "Retrying", ClusterStatus: "Unknown"},
	{App: "web", Cluster: "edge-a", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "acme-shop", Name: "web", RsyncStatus: "Applied", ClusterStatus: "Present", Health: "Healthy"},
	{App: "web", Cluster: "edge-a", Version: "v1", Kind: "ConfigMap", Namespace: "acme-shop", Name: "app", RsyncStatus: "Applied", ClusterStatus: "Present"},
	{App: "web", Cluster: "edge-a", Version: "v1", Kind: "Secret", Namespace: "acme-shop", Name: "db", RsyncStatus: "Applied", ClusterStatus: "Present"},
	{App: "web", Cluster: "edge-b", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "acme-shop", Name: "web", RsyncStatus: "Retrying", ClusterStatus: "Unknown", Health: "Unknown",
		Message: "cluster edge-b is unreachable"},
	{App: "web", Cluster: "edge-a", Version: "v1", Kind: "Service", Namespace: "acme-shop", Name: "old", RsyncStatus: "Terminated", ClusterStatus: "NotPresent"},
}

// emcoStates are the objects the deployer holds for the resources on edge-a (edge-b is down);
// the Secret's values come masked from the worker.
var emcoStates = []contract.ResourceState{
	{Cluster: "edge-a", Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "acme-shop", Name: "web",
		Target: []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"acme-shop"},"spec":{"replicas":2}}`),
		Live:   []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"acme-shop","generation":3},"spec":{"replicas":2},"status":{"readyReplicas":2}}`)},
	{Cluster: "edge-a", Version: "v1", Kind: "ConfigMap", Namespace: "acme-shop", Name: "app",
		Target: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"acme-shop"},"data":{"greeting":"hello"}}`),
		Live:   []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app","namespace":"acme-shop","resourceVersion":"41"},"data":{"greeting":"hello"}}`)},
	{Cluster: "edge-a", Version: "v1", Kind: "Secret", Namespace: "acme-shop", Name: "db",
		Target: []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"acme-shop"},"data":{"password":"[masked]"}}`),
		Live:   []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"acme-shop"},"data":{"password":"[masked]"},"type":"Opaque"}`)},
}

// emcoStatus is the status an output shows of emcoResources, as the query and the client make it.
func emcoStatus(output string, req contract.StatusRequest) *contract.Status {
	st := &contract.Status{Name: "acme/shop", Tenant: "acme", Instance: "shop", Stack: "web", State: lifecycle.Deployed,
		Deployer: "argocd", Conditions: []lifecycle.Condition{}}
	picked := contract.FilterResources(emcoResources, req)
	st.RsyncStatus, st.ClusterStatus = contract.Counts(picked)
	if output != contract.OutputSummary {
		st.Resources = contract.GroupResources(picked, output)
	}
	if output == contract.OutputRsync {
		st.ClusterStatus = nil
	}
	client.FillObjects(st, emcoStates, output)
	return st
}

func printed(st *contract.Status) []byte {
	var out bytes.Buffer
	g := &globals{streams: Streams{Out: &out}}
	g.printStatus(st)
	return out.Bytes()
}

// EMCO's four outputs, two clusters: summary counts both rsync-status and cluster-status;
// all groups by app, then cluster; detail adds each live object; rsync the rendered ones with
// the rsync-status counts and each resource's rsync-status, without the cluster's status. No
// Secret value is printed.
func TestStatusEMCOGolden(t *testing.T) {
	for _, out := range []string{contract.OutputSummary, contract.OutputAll, contract.OutputDetail, contract.OutputRsync} {
		t.Run(out, func(t *testing.T) {
			st := emcoStatus(out, contract.StatusRequest{Output: out})
			text, js := printed(st), render(t, formatJSON, st)
			golden(t, "status-"+out+".txt", text)
			golden(t, "status-"+out+".json", js)
			require.NotContains(t, string(text)+string(js), "hunter2")
		})
	}
	st := emcoStatus(contract.OutputSummary, contract.StatusRequest{})
	require.Equal(t, map[string]int{"Applied": 3, "Retrying": 2, "Terminated": 1}, st.RsyncStatus)
	require.Equal(t, map[string]int{"Present": 3, "Unknown": 2, "NotPresent": 1}, st.ClusterStatus)
	rsync := emcoStatus(contract.OutputRsync, contract.StatusRequest{})
	require.Equal(t, map[string]int{"Applied": 3, "Retrying": 2, "Terminated": 1}, rsync.RsyncStatus, "EMCO's rsync output keeps the counts")
	require.Nil(t, rsync.ClusterStatus)
	for _, cl := range rsync.Resources[0].Clusters {
		for _, r := range cl.Resources {
			require.Empty(t, r.Status, "rsync shows no status")
			require.Empty(t, r.ClusterStatus, "nor the cluster's")
			require.NotEmpty(t, r.RsyncStatus, "each resource's rsync-status")
		}
	}
}

// The app and cluster filters narrow the counts and the resources alike.
func TestStatusFilters(t *testing.T) {
	st := emcoStatus(contract.OutputAll, contract.StatusRequest{Cluster: "edge-b"})
	require.Equal(t, map[string]int{"Retrying": 2}, st.RsyncStatus)
	require.Equal(t, map[string]int{"Unknown": 2}, st.ClusterStatus)
	require.Len(t, st.Resources, 1)
	require.Len(t, st.Resources[0].Clusters, 1)
	require.Equal(t, "edge-b", st.Resources[0].Clusters[0].Name)
	require.Empty(t, emcoStatus(contract.OutputAll, contract.StatusRequest{App: "db"}).Resources)
	st = emcoStatus(contract.OutputAll, contract.StatusRequest{App: "web", Cluster: "edge-a", Resource: "web"})
	require.Equal(t, map[string]int{"Applied": 1}, st.RsyncStatus)
}

// A stack's standing counts, all tenants first.
func TestStackCountsGolden(t *testing.T) {
	var out bytes.Buffer
	writeStackCounts(&out, []client.StackCount{
		{Stack: "web", Ready: 2, Updated: 3, Total: 4},
		{Stack: "web", Tenant: "acme", Ready: 2, Updated: 2, Total: 2},
		{Stack: "web", Tenant: "beta", Ready: 0, Updated: 1, Total: 2},
	})
	golden(t, "stack-counts.txt", out.Bytes())
}
