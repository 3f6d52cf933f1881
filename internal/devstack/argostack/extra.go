package argostack

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/slipway-dev/slipway/internal/devstack/freeport"
)

// Cluster is an extra kube-apiserver with its own etcd, registered in a Stack's ArgoCD as a
// cluster of its own, so apps can be placed on several clusters. It runs no controllers:
// ArgoCD applies and reads objects through the apiserver alone.
type Cluster struct {
	Name    string // the cluster's name in ArgoCD
	KubeURL string // https://127.0.0.1:PORT, below the ephemeral range so a restart gets it back
	*Stack         // the apiserver's own view: Get, Kube and Apply reach this cluster

	tl    tools
	pk    *pki
	ports ports
}

// ClusterSecretType is the label value that makes a Secret in argocd an ArgoCD cluster.
const ClusterSecretType = "cluster"

// AddCluster starts etcd and kube-apiserver for a new cluster and registers it in s's ArgoCD
// as name, carrying labels (what destination selectors match), through a cluster Secret with
// the apiserver's URL, CA and admin token. It stops with s or with Stop.
func (s *Stack) AddCluster(ctx context.Context, toolsDir, name string, labels map[string]string) (*Cluster, error) {
	tl, err := findTools(toolsDir)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(s.Dir, "cluster-"+name)
	if err := os.MkdirAll(filepath.Join(dir, "pki"), 0o700); err != nil {
		return nil, err
	}
	pk, err := makePKI(filepath.Join(dir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("argostack: pki: %w", err)
	}
	var p ports
	for _, dst := range []*int{&p.etcdClient, &p.etcdPeer, &p.apiserver, &p.controllerManager} {
		if *dst, err = freeport.GetBelow(32768); err != nil {
			return nil, err
		}
	}
	inner := &Stack{Dir: dir, plainHTTP: s.plainHTTP, KubeToken: pk.token, KubeCA: pk.caPEM,
		KubeURL: fmt.Sprintf("https://127.0.0.1:%d", p.apiserver)}
	if inner.kubeHTTP, err = kubeClient(pk.caPEM); err != nil {
		return nil, err
	}
	c := &Cluster{Name: name, KubeURL: inner.KubeURL, Stack: inner, tl: tl, pk: pk, ports: p}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	inner.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(inner.Kubeconfig, kubeconfig(inner.KubeURL, pk.caPEM, pk.token), 0o600); err != nil {
		return nil, err
	}
	if err := inner.startAPIServer(ctx, tl, pk, p); err != nil {
		_ = inner.Stop()
		return nil, fmt.Errorf("argostack: cluster %s: %w", name, err)
	}
	// The namespace controller empties and removes a deleted namespace, and the garbage collector
	// ends the foreground deletions ArgoCD asks for, as on a real cluster.
	kcm, err := inner.spawn("kube-controller-manager", tl.controllerManager, []string{
		"--kubeconfig=" + inner.Kubeconfig, "--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(p.controllerManager),
		"--leader-elect=false", "--controllers=namespace,garbagecollector", "--cert-dir=" + filepath.Join(dir, "kcm-certs"),
	}, nil)
	if err == nil {
		err = waitReady(ctx, kcm, "GET /healthz", httpOK(insecureClient, fmt.Sprintf("https://127.0.0.1:%d/healthz", p.controllerManager), "ok"))
	}
	if err != nil {
		_ = inner.Stop()
		return nil, fmt.Errorf("argostack: cluster %s: %w", name, err)
	}
	s.extras = append(s.extras, c)
	if err := s.writeKubeconfig(); err != nil {
		return c, err
	}
	if err := s.apply(ctx, clusterSecret(name, c.KubeURL, pk, labels)); err != nil {
		return c, fmt.Errorf("argostack: register cluster %s: %w", name, err)
	}
	// argocd-server learns of the secret through its informer: the cluster is usable once listed.
	return c, waitReady(ctx, s.proc("argocd-server"), "cluster "+name+" listed", func(ctx context.Context) (bool, error) {
		status, body, err := s.Argo(ctx, http.MethodGet, "/api/v1/clusters", nil)
		if err != nil || status != http.StatusOK {
			return false, err
		}
		return strings.Contains(string(body), `"name":"`+name+`"`), nil
	})
}

// writeKubeconfig rewrites the stack's kubeconfig with a context per extra cluster, named as
// ArgoCD names it, beside the current one: the deployer reaches each cluster through it.
func (s *Stack) writeKubeconfig() error {
	type named struct {
		Name    string         `yaml:"name"`
		Cluster map[string]any `yaml:"cluster,omitempty"`
		User    map[string]any `yaml:"user,omitempty"`
		Context map[string]any `yaml:"context,omitempty"`
	}
	var clusters, users, contexts []named
	add := func(name, server string, ca []byte, token string) {
		clusters = append(clusters, named{Name: name, Cluster: map[string]any{"server": server,
			"certificate-authority-data": base64.StdEncoding.EncodeToString(ca)}})
		users = append(users, named{Name: name, User: map[string]any{"token": token}})
		contexts = append(contexts, named{Name: name, Context: map[string]any{"cluster": name, "user": name, "namespace": ArgoNamespace}})
	}
	add("slipway-test", s.KubeURL, s.KubeCA, s.KubeToken)
	for _, c := range s.extras {
		add(c.Name, c.KubeURL, c.KubeCA, c.KubeToken)
	}
	data, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "kind": "Config", "clusters": clusters,
		"users": users, "contexts": contexts, "current-context": "slipway-test"})
	if err != nil {
		return err
	}
	return os.WriteFile(s.Kubeconfig, data, 0o600)
}

// clusterSecret is ArgoCD's declarative cluster: a labelled Secret with name, server and config.
func clusterSecret(name, server string, pk *pki, labels map[string]string) []byte {
	l := map[string]string{"argocd.argoproj.io/secret-type": ClusterSecretType}
	for k, v := range labels {
		l[k] = v
	}
	config, _ := json.Marshal(map[string]any{
		"bearerToken":     pk.token,
		"tlsClientConfig": map[string]any{"caData": base64.StdEncoding.EncodeToString(pk.caPEM)},
	})
	doc, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "cluster-" + name, "namespace": ArgoNamespace, "labels": l},
		"stringData": map[string]string{"name": name, "server": server, "config": string(config)},
	})
	return doc
}

// StopAPIServer stops the cluster's kube-apiserver, leaving etcd: the cluster is unreachable
// for ArgoCD until StartAPIServer, as a cluster whose control plane is down.
func (c *Cluster) StopAPIServer() error {
	api := c.proc("kube-apiserver")
	if api == nil {
		return nil
	}
	err := api.Stop()
	c.procs = slices.DeleteFunc(c.procs, func(p *process) bool { return p == api })
	return err
}

// StartAPIServer starts the kube-apiserver again on the same port and etcd.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return c.spawnAPIServer(ctx, c.tl, c.pk, c.ports)
}

// Reachable reports whether the cluster's apiserver answers /readyz.
func (c *Cluster) Reachable(ctx context.Context) bool {
	status, _, err := c.kube(ctx, http.MethodGet, "/readyz", "", nil)
	return err == nil && status == http.StatusOK
}
