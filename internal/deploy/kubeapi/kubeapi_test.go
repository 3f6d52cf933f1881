package kubeapi

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
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeKubeconfig(t *testing.T, server string, caPEM []byte, user string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	body := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: " + server +
		"\n    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caPEM) +
		"\nusers:\n- name: u\n  user:\n" + user + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

func TestLoadAndCallWithTheKubeconfigsCredential(t *testing.T) {
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("Authorization")+" "+string(body))
		if strings.HasSuffix(r.URL.Path, "/missing") {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]string{"reason": "NotFound", "message": `namespaces "missing" not found`})
			return
		}
		_, _ = w.Write([]byte(`{"metadata":{"name":"ns"}}`))
	}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	c, err := Load(writeKubeconfig(t, srv.URL, ca, "    token: tok\n"))
	require.NoError(t, err)
	ctx := context.Background()

	var out struct{ Metadata struct{ Name string } }
	require.NoError(t, c.Get(ctx, "/api/v1/namespaces/ns", &out))
	require.Equal(t, "ns", out.Metadata.Name)
	require.NoError(t, c.Apply(ctx, "/api/v1/namespaces/ns", map[string]string{"kind": "Namespace"}, nil))
	err = c.Get(ctx, "/api/v1/namespaces/missing", nil)
	require.True(t, IsNotFound(err))
	require.False(t, IsPermanent(err))
	require.NoError(t, c.Delete(ctx, "/api/v1/namespaces/missing"), "already gone is success")
	require.Equal(t, "GET /api/v1/namespaces/ns  Bearer tok ", got[0])
	require.Equal(t, `PATCH /api/v1/namespaces/ns?fieldManager=slipway&force=true application/apply-patch+yaml Bearer tok {"kind":"Namespace"}`, got[1])
}

func TestLoadNamesTheFieldAndNoSecret(t *testing.T) {
	ca := []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	_, err := Load(writeKubeconfig(t, "http://127.0.0.1:1", ca, "    token: s3cr3t\n"))
	require.ErrorContains(t, err, "SLIPWAY_KUBECONFIG")
	require.ErrorContains(t, err, "clusters[c].server must be an https URL")
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	good := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	_, err = Load(writeKubeconfig(t, "https://127.0.0.1:1", ca, "    token: s3cr3t\n"))
	require.ErrorContains(t, err, "certificate-authority holds no PEM certificate")
	_, err = Load(writeKubeconfig(t, "https://127.0.0.1:1", good, "    username: x\n"))
	require.ErrorContains(t, err, "has no token, tokenFile or client certificate")
	_, err = Load(filepath.Join(t.TempDir(), "none"))
	require.ErrorContains(t, err, "SLIPWAY_KUBECONFIG")
	require.NotContains(t, err.Error(), "s3cr3t")
}
