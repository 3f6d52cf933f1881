package cluster_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite"
	"github.com/slipway-dev/slipway/testsuite/cluster"

	"github.com/slipway-dev/slipway/internal/devstack/argostack"
)

const (
	appName  = "cluster-demo"
	appNS    = "cluster-demo"
	appCM    = "demo-cm"
	appPath  = "app"
	appsPath = "/api/v1/applications"
	// appKubePath is the Application object itself, read straight from kube-apiserver.
	appKubePath = "/apis/argoproj.io/v1alpha1/namespaces/" + argostack.ArgoNamespace + "/applications/" + appName
	// waitLimit bounds a wedged reconcile; a safety net, not a timing assertion.
	waitLimit = 5 * time.Minute
)

type appStatus struct {
	Status struct {
		Sync           struct{ Status string }
		Health         struct{ Status string }
		OperationState struct{ Phase, Message string }
	}
}

// TestStackDeploysFromFileRepoAndCascadeDeletes drives a real ArgoCD through its REST API:
// an Application on a file:// bare repo syncs to Healthy, then a cascade delete removes it.
func TestStackDeploysFromFileRepoAndCascadeDeletes(t *testing.T) {
	begin := time.Now()
	s := cluster.Start(t)
	t.Logf("stack started in %v (kube %s, argocd %s, logs %s)", time.Since(begin).Round(time.Millisecond), s.KubeURL, s.ArgoURL, s.Dir)

	status, body := s.Get(t, "/api/v1/namespaces/"+argostack.ArgoNamespace+"/configmaps/argocd-cm")
	require.Equal(t, http.StatusOK, status, "argocd-cm applied: %s", body)
	status, body = s.Get(t, "/api/v1/namespaces/"+appNS)
	require.Equal(t, http.StatusNotFound, status, "namespace exists before the deploy: %s", body)
	// argocd-server answers 403, not 404, for an unknown app so as not to leak names.
	status, body = s.Argo(t, http.MethodGet, appsPath+"/"+appName, nil)
	require.Equal(t, http.StatusForbidden, status, "application exists before create: %s", body)

	repo := bareRepo(t, map[string]string{
		"ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + appNS + "\n",
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + appCM + "\n  namespace: " + appNS + "\ndata:\n  hello: world\n",
	})

	deploy := time.Now()
	app := map[string]any{
		"metadata": map[string]any{"name": appName, "namespace": argostack.ArgoNamespace},
		"spec": map[string]any{
			"project":     "default",
			"source":      map[string]any{"repoURL": "file://" + repo, "targetRevision": "main", "path": appPath},
			"destination": map[string]any{"server": argostack.InClusterServer},
		},
	}
	status, body = s.Argo(t, http.MethodPost, appsPath, app)
	require.Equal(t, http.StatusOK, status, "create application: %s", body)
	status, body = s.Argo(t, http.MethodPost, appsPath+"/"+appName+"/sync", map[string]any{"revision": "main", "prune": true})
	require.Equal(t, http.StatusOK, status, "sync application: %s", body)

	last := waitApp(t, s, func(a appStatus) bool {
		return a.Status.OperationState.Phase == "Succeeded" && a.Status.Sync.Status == "Synced" && a.Status.Health.Status == "Healthy"
	})
	t.Logf("deploy to Healthy took %v", time.Since(deploy).Round(time.Millisecond))
	assert.Equal(t, "Succeeded", last.Status.OperationState.Phase)

	status, body = s.Get(t, "/api/v1/namespaces/"+appNS+"/configmaps/"+appCM)
	require.Equal(t, http.StatusOK, status, "configmap deployed: %s", body)
	var cm struct{ Data map[string]string }
	require.NoError(t, json.Unmarshal(body, &cm))
	assert.Equal(t, "world", cm.Data["hello"])

	status, body = s.Argo(t, http.MethodDelete, appsPath+"/"+appName+"?cascade=true", nil)
	require.Equal(t, http.StatusOK, status, "delete application: %s", body)
	waitGone(t, s, appKubePath)
	waitGone(t, s, "/api/v1/namespaces/"+appNS)
}

// bareRepo commits files under app/ on main and returns the path of a bare clone.
func bareRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "work")
	require.NoError(t, os.MkdirAll(filepath.Join(work, appPath), 0o755))
	testsuite.Git(t, work, "init", "-q", "-b", "main")
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(work, appPath, name), []byte(content), 0o644))
	}
	testsuite.Git(t, work, "add", "-A")
	testsuite.Git(t, work, "commit", "-q", "-m", "app")
	bare := filepath.Join(t.TempDir(), "gitops.git")
	testsuite.Git(t, work, "clone", "-q", "--bare", work, bare)
	return bare
}

func waitApp(t *testing.T, s *cluster.Stack, done func(appStatus) bool) appStatus {
	t.Helper()
	var a appStatus
	var raw []byte
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		status, body := s.Argo(t, http.MethodGet, appsPath+"/"+appName, nil)
		require.Equal(t, http.StatusOK, status, "get application: %s", body)
		a, raw = appStatus{}, body
		require.NoError(t, json.Unmarshal(body, &a))
		if done(a) {
			return a
		}
	}
	t.Fatalf("application %s never reached the wanted state; last: %s", appName, raw)
	return a
}

func waitGone(t *testing.T, s *cluster.Stack, path string) {
	t.Helper()
	var body []byte
	for deadline := time.Now().Add(waitLimit); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		var status int
		status, body = s.Get(t, path)
		if status == http.StatusNotFound {
			return
		}
		require.Equal(t, http.StatusOK, status, "GET %s: %s", path, body)
	}
	t.Fatalf("%s still present; last: %s", path, body)
}
