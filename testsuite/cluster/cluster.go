// Package cluster gives tests a real kube-apiserver and a real ArgoCD
// (internal/devstack/argostack) that start with the test and stop with it.
package cluster

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/slipway-dev/slipway/internal/devstack/argostack"
	"github.com/slipway-dev/slipway/internal/localdirs"
)

// EnvRequire="1" turns missing binaries into a test failure instead of a skip (CI sets it).
const EnvRequire = "SLIPWAY_REQUIRE_ARGOCD"

// Stack is a running stack with test-friendly helpers.
type Stack struct {
	*argostack.Stack
}

// Start starts the stack for t and stops it in t.Cleanup. Missing binaries skip the
// test (naming `make argocd-stack`) unless SLIPWAY_REQUIRE_ARGOCD=1.
func Start(t testing.TB) *Stack {
	t.Helper()
	dir, err := os.MkdirTemp("", "slipway-cluster-")
	if err != nil {
		t.Fatalf("cluster: temp dir: %v", err)
	}
	begin := time.Now()
	s, err := argostack.Start(context.Background(), argostack.Options{Dir: dir, ToolsDir: localdirs.Tools()})
	var missing *argostack.MissingToolError
	switch {
	case errors.As(err, &missing) && os.Getenv(EnvRequire) != "1":
		os.RemoveAll(dir)
		t.Skip(err.Error())
	case err != nil:
		t.Fatalf("cluster: %v (logs in %s)", err, dir)
	}
	t.Logf("cluster: started in %v", time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("cluster: stop: %v", err)
		}
		if t.Failed() {
			t.Logf("cluster: component logs kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	return &Stack{Stack: s}
}

// Get does a raw GET on kube-apiserver as the admin user.
func (s *Stack) Get(t testing.TB, path string) (status int, body []byte) {
	t.Helper()
	status, body, err := s.Stack.Get(context.Background(), path)
	if err != nil {
		t.Fatalf("cluster: GET %s: %v", path, err)
	}
	return status, body
}

// Kube sends a raw request to kube-apiserver as the admin user and fails the test on a
// transport error; the caller checks the status.
func (s *Stack) Kube(t testing.TB, method, path, contentType string, body []byte) (status int, resp []byte) {
	t.Helper()
	status, resp, err := s.Stack.Kube(context.Background(), method, path, contentType, body)
	if err != nil {
		t.Fatalf("cluster: %s %s: %v", method, path, err)
	}
	return status, resp
}

// Apply server-side-applies a multi-document manifest.
func (s *Stack) Apply(t testing.TB, manifest []byte) {
	t.Helper()
	if err := s.Stack.Apply(context.Background(), manifest); err != nil {
		t.Fatalf("cluster: apply: %v", err)
	}
}

// Argo calls argocd-server's REST API with the session token.
func (s *Stack) Argo(t testing.TB, method, path string, body any) (status int, resp []byte) {
	t.Helper()
	status, resp, err := s.Stack.Argo(context.Background(), method, path, body)
	if err != nil {
		t.Fatalf("cluster: argocd %s %s: %v", method, path, err)
	}
	return status, resp
}

// AddCluster starts a second kube-apiserver with its own etcd, registered in this stack's
// ArgoCD as cluster name with labels; it stops with the stack. Only tests that place apps on
// several clusters start one.
func (s *Stack) AddCluster(t testing.TB, name string, labels map[string]string) *argostack.Cluster {
	t.Helper()
	begin := time.Now()
	c, err := s.Stack.AddCluster(context.Background(), localdirs.Tools(), name, labels)
	if err != nil {
		t.Fatalf("cluster: add %s: %v (logs in %s)", name, err, s.Dir)
	}
	t.Logf("cluster: %s at %s started in %v", name, c.KubeURL, time.Since(begin).Round(time.Millisecond))
	return c
}
