// Package argostack runs a real kube-apiserver and a real ArgoCD out of cluster on 127.0.0.1
// (the embedded default's deployer, and the tests'): etcd, kube-apiserver, kube-controller-manager, redis, argocd-repo-server,
// argocd-application-controller and argocd-server, each a plain process on free ports.
package argostack

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
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

// Stack is a running apiserver + ArgoCD; Stop ends it.
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
	extras    []*Cluster // AddCluster's, stopped before the stack
}

// Options say where a stack keeps its files and finds its binaries.
type Options struct {
	Dir      string // logs (<component>.log), pki, etcd data; created if missing
	ToolsDir string // the tool cache scripts/tools.sh fills (kubernetes-*, argocd-*)
}

// Start starts the whole stack, applies the ArgoCD CRDs and config, waits until every
// component is ready and logs in to argocd-server. Missing binaries give a
// *MissingToolError naming `make argocd-stack`. On error everything begun is stopped.
func Start(ctx context.Context, o Options) (*Stack, error) {
	tl, err := findTools(o.ToolsDir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("argostack: dir: %w", err)
	}
	s := &Stack{Dir: o.Dir, plainHTTP: &http.Client{Timeout: 30 * time.Second}}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := s.start(ctx, tl); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("argostack: start: %w", err)
	}
	started.Store(s.ArgoURL, s.Kubeconfig)
	return s, nil
}

// started maps the ArgoCD URL of each stack this process runs to its kubeconfig.
var started sync.Map

// KubeconfigOf is the kubeconfig of the stack this process started at argoURL, "" for any
// other: a worker set up in the same process (slipway dev, the tests) finds its cluster's
// credential from the ArgoCD it was given.
func KubeconfigOf(argoURL string) string {
	if v, ok := started.Load(argoURL); ok {
		return v.(string)
	}
	return ""
}

// Stop ends the components newest first: ArgoCD before the apiserver, the apiserver before
// etcd (kube-apiserver hangs on SIGTERM once etcd is gone). It is safe to call twice.
func (s *Stack) Stop() error {
	var errs []error
	for _, c := range s.extras {
		errs = append(errs, c.Stop())
	}
	s.extras = nil
	for i := len(s.procs) - 1; i >= 0; i-- {
		if err := s.procs[i].Stop(); err != nil {
			errs = append(errs, err)
		}
	}
	s.procs = nil
	started.Delete(s.ArgoURL)
	return errors.Join(errs...)
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
		return fmt.Errorf("argostack: pki: %w", err)
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
