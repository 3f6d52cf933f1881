package argocd

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
)

// fakeKube is a kube-apiserver holding namespaces and Secrets as JSON objects by path.
type fakeKube struct {
	mu      sync.Mutex
	objects map[string]map[string]any
	calls   []string
}

func newFakeKube(t *testing.T) (*fakeKube, *kubeapi.Client) {
	k := &fakeKube{objects: map[string]map[string]any{}}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		defer k.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		k.calls = append(k.calls, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		obj, ok := k.objects[r.URL.Path]
		switch {
		case r.Method == http.MethodPatch:
			var in map[string]any
			require.NoError(t, json.Unmarshal(body, &in))
			if !ok || r.Header.Get("Content-Type") == "application/apply-patch+yaml" {
				obj = in
			} else {
				merge(obj, in)
			}
			k.objects[r.URL.Path] = obj
		case r.Method == http.MethodDelete && ok:
			delete(k.objects, r.URL.Path)
		case !ok:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"reason":"NotFound","message":"not found"}`))
			return
		}
		_ = json.NewEncoder(w).Encode(obj)
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	p := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(p, []byte("clusters:\n- name: c\n  cluster:\n    server: "+srv.URL+"\n    certificate-authority-data: "+
		base64.StdEncoding.EncodeToString(ca)+"\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"), 0o600))
	c, err := kubeapi.Load(p)
	require.NoError(t, err)
	return k, c
}

// merge is a JSON merge patch: null removes a key.
func merge(dst, patch map[string]any) {
	for k, v := range patch {
		switch v := v.(type) {
		case nil:
			delete(dst, k)
		case map[string]any:
			sub, _ := dst[k].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
			}
			merge(sub, v)
			dst[k] = sub
		default:
			dst[k] = v
		}
	}
}

func (k *fakeKube) object(path string) map[string]any {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.objects[path]
}

func secretsApp() deploy.App {
	app := testApp()
	app.Secrets = map[string]string{"api_key": "s3cr3t-value"}
	return app
}

func TestDeployMakesTheNamespaceAndTheSecretItself(t *testing.T) {
	f := newFake(t)
	k, kube := newFakeKube(t)
	d := NewDeployer(f.client(t), WithKube(kube))
	_, err := d.Deploy(context.Background(), secretsApp(), farDeadline())
	require.NoError(t, err)

	ns := k.object("/api/v1/namespaces/acme-web")
	require.Equal(t, map[string]any{LabelManagedBy: ManagedBy, LabelTenant: "acme", LabelName: "web"}, ns["metadata"].(map[string]any)["labels"])
	sec := k.object("/api/v1/namespaces/acme-web/secrets/" + SecretName)
	require.Equal(t, base64.StdEncoding.EncodeToString([]byte("s3cr3t-value")), sec["data"].(map[string]any)["api_key"])
	a, _ := f.app("acme-web")
	raw, _ := json.Marshal(a)
	require.NotContains(t, string(raw), "s3cr3t-value", "the Application carries no secret")

	_, err = d.Remove(context.Background(), secretsApp())
	require.NoError(t, err)
	require.Nil(t, k.object("/api/v1/namespaces/acme-web"), "archive deletes the namespace, and the Secret in it")
}

// A namespace the instance's own Application made before the deployer made namespaces is
// adopted: labelled as the instance's, and no longer tracked by ArgoCD (so no sync prunes it).
// Without the instance's Application it is somebody else's and refused.
func TestANamespaceIsAdoptedOnlyFromTheInstancesOwnApplication(t *testing.T) {
	f := newFake(t)
	k, kube := newFakeKube(t)
	d := NewDeployer(f.client(t), WithKube(kube))
	legacyNS := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "acme-web",
		"labels":      map[string]any{instanceLabel: "acme-web", "slipway.dev/instance": "web"},
		"annotations": map[string]any{trackingAnnotation: "acme-web:/Namespace:acme-web/acme-web"}}}
	k.objects["/api/v1/namespaces/acme-web"] = legacyNS

	_, err := d.Deploy(context.Background(), secretsApp(), farDeadline())
	var no *deploy.NotOwnedError
	require.ErrorAs(t, err, &no, "no app of the instance: the namespace is someone's")
	require.Equal(t, "kubernetes namespace", no.Kind)
	require.Nil(t, k.object("/api/v1/namespaces/acme-web/secrets/"+SecretName))

	f.put(Application{Metadata: ObjectMeta{Name: "acme-web"}}) // the instance's app, from before
	_, err = d.Deploy(context.Background(), secretsApp(), farDeadline())
	require.NoError(t, err)
	meta := k.object("/api/v1/namespaces/acme-web")["metadata"].(map[string]any)
	require.Equal(t, map[string]any{LabelManagedBy: ManagedBy, LabelTenant: "acme", LabelName: "web", "slipway.dev/instance": "web"}, meta["labels"])
	require.Empty(t, meta["annotations"], "ArgoCD's tracking mark is gone")
	require.NotNil(t, k.object("/api/v1/namespaces/acme-web/secrets/"+SecretName))
}

func TestSecretsWithoutAClusterCredentialAreRefused(t *testing.T) {
	f := newFake(t)
	_, err := NewDeployer(f.client(t)).Deploy(context.Background(), secretsApp(), farDeadline())
	var ie *InvalidInputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, kubeapi.EnvKubeconfig, ie.Field)
	require.Empty(t, f.created, "nothing reached ArgoCD")
}
