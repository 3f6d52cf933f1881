// Package cluster runs a real kube-apiserver and a real ArgoCD out of cluster on 127.0.0.1
// for tests: etcd, kube-apiserver, kube-controller-manager, redis, argocd-repo-server,
// argocd-application-controller and argocd-server, each a plain process on free ports.
package cluster

import (
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const (
	// ArgoNamespace is where ArgoCD's config and Applications live.
	ArgoNamespace = "argocd"
	// InClusterServer is the Application destination that means "this apiserver".
	InClusterServer = "https://kubernetes.default.svc"

	// startTimeout bounds a wedged start; it is a safety net, not a pass/fail timing.
	startTimeout = 5 * time.Minute
	pollEvery    = 200 * time.Millisecond
)

// argoConfig is namespace argocd, argocd-cm (reconciliation 10s), argocd-rbac-cm,
// argocd-cmd-params-cm, argocd-secret (no admin password, so argocd-server makes one)
// and the default AppProject.
//
//go:embed testdata/argocd-config.yaml
var argoConfig []byte

// Stack is a running apiserver + ArgoCD; Start stops it in t.Cleanup.
type Stack struct {
	KubeURL    string // https://127.0.0.1:PORT
	KubeToken  string // admin bearer token (group system:masters)
	KubeCA     []byte // PEM of the CA that signed the apiserver's certificate
	Kubeconfig string // file with the three above, namespace argocd
	ArgoURL    string // http://127.0.0.1:PORT (argocd-server --insecure)
	ArgoToken  string // session token of admin, from POST /api/v1/session
	Dir        string // temp dir with the components' logs (<component>.log) and state

	kubeHTTP  *http.Client
	plainHTTP *http.Client
	procs     []*process // in start order; stopped in reverse
}

// Start starts the whole stack, applies the ArgoCD CRDs and config, waits until every
// component is ready and logs in to argocd-server. Missing binaries skip the test (the
// message names `make argocd-stack`) unless SLIPWAY_REQUIRE_ARGOCD=1, which fails it.
func Start(t testing.TB) *Stack {
	t.Helper()
	tl, err := findTools()
	if err != nil {
		if os.Getenv(EnvRequire) == "1" {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
	dir, err := os.MkdirTemp("", "slipway-cluster-")
	if err != nil {
		t.Fatalf("cluster: temp dir: %v", err)
	}
	s := &Stack{Dir: dir, plainHTTP: &http.Client{Timeout: 30 * time.Second}}
	// Registered before anything starts, so a failed Start still stops what it began.
	t.Cleanup(func() {
		begin := time.Now()
		s.stop(t)
		t.Logf("cluster: stopped in %v", time.Since(begin).Round(time.Millisecond))
		if t.Failed() {
			t.Logf("cluster: component logs kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := s.start(ctx, tl); err != nil {
		t.Fatalf("cluster: start: %v", err)
	}
	return s
}

// stop ends the components newest first: ArgoCD before the apiserver, the apiserver before
// etcd (kube-apiserver hangs on SIGTERM once etcd is gone).
func (s *Stack) stop(t testing.TB) {
	for i := len(s.procs) - 1; i >= 0; i-- {
		if err := s.procs[i].stop(); err != nil {
			t.Errorf("cluster: stop: %v", err)
		}
	}
	s.procs = nil
}

func (s *Stack) spawn(name, bin string, args, env []string) (*process, error) {
	p, err := spawn(s.Dir, name, bin, args, env)
	if err != nil {
		return nil, err
	}
	s.procs = append(s.procs, p)
	return p, nil
}

func (s *Stack) start(ctx context.Context, tl tools) error {
	ports, err := pickPorts()
	if err != nil {
		return err
	}
	pkiDir := filepath.Join(s.Dir, "pki")
	if err := os.MkdirAll(pkiDir, 0o700); err != nil {
		return err
	}
	pk, err := makePKI(pkiDir)
	if err != nil {
		return fmt.Errorf("cluster: pki: %w", err)
	}
	s.KubeURL = fmt.Sprintf("https://127.0.0.1:%d", ports.apiserver)
	s.KubeToken, s.KubeCA = pk.token, pk.caPEM
	s.ArgoURL = fmt.Sprintf("http://127.0.0.1:%d", ports.argoServer)
	if s.kubeHTTP, err = kubeClient(pk.caPEM); err != nil {
		return err
	}
	s.Kubeconfig = filepath.Join(s.Dir, "kubeconfig")
	if err := os.WriteFile(s.Kubeconfig, kubeconfig(s.KubeURL, pk.caPEM, pk.token), 0o600); err != nil {
		return err
	}
	if err := s.startKube(ctx, tl, pk, ports); err != nil {
		return err
	}
	if err := s.configure(ctx, tl); err != nil {
		return err
	}
	return s.startArgo(ctx, tl, ports)
}
