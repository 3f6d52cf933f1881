package cluster_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/devstack/argostack"
	"github.com/slipway-dev/slipway/testsuite/cluster"
)

// A second apiserver registered in the same ArgoCD is listed with its labels, and an app in a
// project that permits no cluster-scoped kind syncs onto it; ArgoCD may not make the namespace
// there (CreateNamespace is refused in such a project), so whoever deploys makes it first.
func TestSecondClusterTakesApps(t *testing.T) {
	s := cluster.Start(t)
	edge := s.AddCluster(t, "edge", map[string]string{"tier": "edge"})

	status, body := s.Argo(t, http.MethodGet, "/api/v1/clusters", nil)
	require.Equal(t, http.StatusOK, status, string(body))
	var list struct {
		Items []struct {
			Name, Server string
			Labels       map[string]string
		}
	}
	require.NoError(t, json.Unmarshal(body, &list))
	found := false
	for _, c := range list.Items {
		if c.Name == "edge" {
			found = true
			require.Equal(t, edge.KubeURL, c.Server)
			require.Equal(t, "edge", c.Labels["tier"])
		}
	}
	require.True(t, found, "edge listed: %s", body)

	proj := map[string]any{"project": map[string]any{
		"metadata": map[string]any{"name": "edge-apps"},
		"spec": map[string]any{"sourceRepos": []string{"*"},
			"destinations": []map[string]string{{"name": "edge", "namespace": appNS}}}}}
	status, body = s.Argo(t, http.MethodPost, "/api/v1/projects", proj)
	require.Equal(t, http.StatusOK, status, string(body))
	repo := bareRepo(t, map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + appCM + "\n  namespace: " + appNS + "\ndata:\n  hello: edge\n",
	})
	require.NoError(t, edge.Apply(context.Background(), []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+appNS+"\n")))
	app := map[string]any{
		"metadata": map[string]any{"name": appName, "namespace": argostack.ArgoNamespace},
		"spec": map[string]any{
			"project":     "edge-apps",
			"source":      map[string]any{"repoURL": "file://" + repo, "targetRevision": "main", "path": appPath},
			"destination": map[string]any{"name": "edge", "namespace": appNS},
		},
	}
	status, body = s.Argo(t, http.MethodPost, appsPath, app)
	require.Equal(t, http.StatusOK, status, "create application: %s", body)
	status, body = s.Argo(t, http.MethodPost, appsPath+"/"+appName+"/sync", map[string]any{"revision": "main", "prune": true})
	require.Equal(t, http.StatusOK, status, "sync application: %s", body)
	waitApp(t, s, func(a appStatus) bool {
		return a.Status.OperationState.Phase == "Succeeded" && a.Status.Sync.Status == "Synced" && a.Status.Health.Status == "Healthy"
	})
	status, body, err := edge.Get(context.Background(), "/api/v1/namespaces/"+appNS+"/configmaps/"+appCM)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, "on the edge cluster: %s", body)
	status, _ = s.Get(t, "/api/v1/namespaces/"+appNS)
	require.Equal(t, http.StatusNotFound, status, "not on the first")
}
