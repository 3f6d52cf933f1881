package argocd

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

const testRev = "4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c"

func testApp() deploy.App {
	return deploy.App{
		Ref: contract.Ref{Tenant: "acme", Name: "web"}, Namespace: "acme-web", Application: "acme-web",
		RepoURL: "file:///srv/gitops", Path: "instances/acme/web/manifests", Revision: testRev,
		Objects: []deploy.Object{
			{APIVersion: "v1", Kind: "Namespace", Name: "acme-web"},
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "acme-web", Name: "web"},
		},
	}
}

func newLoopbackServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// farDeadline is never reached by a test that is meant to succeed.
func farDeadline() time.Time { return time.Now().Add(time.Hour) }
