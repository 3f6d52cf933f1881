package argostack

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
)

// startKube starts etcd and kube-apiserver (waiting for /readyz), then kube-controller-manager
// and redis.
func (s *Stack) startKube(ctx context.Context, tl tools, pk *pki, p ports) error {
	if err := s.startAPIServer(ctx, tl, pk, p); err != nil {
		return err
	}
	return s.startControllers(ctx, tl, pk, p)
}

// startAPIServer starts etcd, then kube-apiserver on it, waiting until each is ready.
func (s *Stack) startAPIServer(ctx context.Context, tl tools, pk *pki, p ports) error {
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", p.etcdPeer)
	etcd, err := s.spawn("etcd", tl.etcd, []string{
		"--name", "default", "--data-dir", filepath.Join(s.Dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "default=" + peerURL, "--logger", "zap",
	}, nil)
	if err != nil {
		return err
	}
	if err := waitReady(ctx, etcd, "GET /health", httpOK(s.plainHTTP, etcdURL+"/health", `"true"`)); err != nil {
		return err
	}
	return s.spawnAPIServer(ctx, tl, pk, p)
}

// spawnAPIServer starts kube-apiserver on etcd at p.etcdClient and waits for /readyz.
func (s *Stack) spawnAPIServer(ctx context.Context, tl tools, pk *pki, p ports) error {
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", p.etcdClient)
	api, err := s.spawn("kube-apiserver", tl.apiserver, []string{
		"--etcd-servers=" + etcdURL, "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(p.apiserver),
		"--tls-cert-file=" + pk.srvCert, "--tls-private-key-file=" + pk.srvKey, "--client-ca-file=" + pk.caCert,
		"--token-auth-file=" + pk.tokensFile, "--authorization-mode=RBAC",
		"--service-account-issuer=" + InClusterServer, "--service-account-key-file=" + pk.saPub,
		"--service-account-signing-key-file=" + pk.saKey, "--service-cluster-ip-range=10.0.0.0/24",
		"--cert-dir=" + filepath.Join(s.Dir, "apiserver-certs"),
	}, nil)
	if err != nil {
		return err
	}
	readyz := func(ctx context.Context) (bool, error) {
		status, body, err := s.kube(ctx, http.MethodGet, "/readyz", "", nil)
		if err != nil {
			return false, err
		}
		if status != http.StatusOK {
			return false, fmt.Errorf("/readyz: HTTP %d: %.300s", status, body)
		}
		return true, nil
	}
	return waitReady(ctx, api, "GET /readyz", readyz)
}

// startControllers starts kube-controller-manager and redis.
func (s *Stack) startControllers(ctx context.Context, tl tools, pk *pki, p ports) error {
	// deployment and replicaset roll workloads out, so a stuck rollout (no scheduler here: pods
	// stay Pending) passes its progress deadline and ArgoCD reports it Degraded, as on a real cluster.
	kcm, err := s.spawn("kube-controller-manager", tl.controllerManager, []string{
		"--kubeconfig=" + s.Kubeconfig, "--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(p.controllerManager),
		"--leader-elect=false", "--controllers=namespace,garbagecollector,serviceaccount,serviceaccount-token,deployment,replicaset",
		"--service-account-private-key-file=" + pk.saKey, "--root-ca-file=" + pk.caCert,
		"--cert-dir=" + filepath.Join(s.Dir, "kcm-certs"),
	}, nil)
	if err != nil {
		return err
	}
	redisAddr := fmt.Sprintf("127.0.0.1:%d", p.redis)
	redis, err := s.spawn("redis", tl.redis, []string{
		"--port", strconv.Itoa(p.redis), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.Dir, "--daemonize", "no",
	}, nil)
	if err != nil {
		return err
	}
	kcmURL := fmt.Sprintf("https://127.0.0.1:%d/healthz", p.controllerManager)
	if err := waitReady(ctx, kcm, "GET /healthz", httpOK(insecureClient, kcmURL, "ok")); err != nil {
		return err
	}
	return waitReady(ctx, redis, "PING", redisPing(redisAddr))
}
