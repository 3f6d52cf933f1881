package argostack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// startArgo starts argocd-repo-server, argocd-application-controller and argocd-server, waits
// for their /healthz, then logs in with the password argocd-server put in
// argocd-initial-admin-secret.
func (s *Stack) startArgo(ctx context.Context, tl tools, p ports) error {
	env, err := s.argoEnv()
	if err != nil {
		return err
	}
	// One multi-call binary: its role is the name it is run as.
	bin := func(role string) (string, error) {
		link := filepath.Join(s.Dir, "bin", role)
		return link, os.Symlink(tl.argocd, link)
	}
	redis := fmt.Sprintf("127.0.0.1:%d", p.redis)
	repoAddr := fmt.Sprintf("127.0.0.1:%d", p.repoServer)
	type component struct {
		role   string
		args   []string
		health string
	}
	components := []component{
		{"argocd-repo-server", []string{
			"--address", "127.0.0.1", "--port", strconv.Itoa(p.repoServer),
			"--metrics-address", "127.0.0.1", "--metrics-port", strconv.Itoa(p.repoMetrics),
			"--redis", redis, "--disable-tls",
		}, fmt.Sprintf("http://127.0.0.1:%d/healthz", p.repoMetrics)},
		// Its metrics server binds 0.0.0.0: the controller has no flag to change that.
		{"argocd-application-controller", []string{
			"--namespace", ArgoNamespace, "--redis", redis, "--repo-server", repoAddr, "--repo-server-plaintext",
			"--metrics-port", strconv.Itoa(p.controllerMetrics),
			"--commit-server", fmt.Sprintf("127.0.0.1:%d", p.commitServer), // unused: no source hydration
		}, fmt.Sprintf("http://127.0.0.1:%d/healthz", p.controllerMetrics)},
		{"argocd-server", []string{
			"--insecure", "--address", "127.0.0.1", "--port", strconv.Itoa(p.argoServer),
			"--metrics-address", "127.0.0.1", "--metrics-port", strconv.Itoa(p.argoServerMetrics),
			"--repo-server", repoAddr, "--repo-server-plaintext", "--redis", redis,
			"--namespace", ArgoNamespace, "--disable-auth=false",
		}, s.ArgoURL + "/healthz"},
	}
	procs := make([]*process, len(components))
	for i, c := range components {
		path, err := bin(c.role)
		if err != nil {
			return err
		}
		if procs[i], err = s.spawn(c.role, path, c.args, env); err != nil {
			return err
		}
	}
	for i, c := range components {
		if err := waitReady(ctx, procs[i], "GET /healthz", httpOK(s.plainHTTP, c.health, "")); err != nil {
			return err
		}
	}
	server := procs[len(procs)-1]
	var password string
	if err := waitReady(ctx, server, "argocd-initial-admin-secret", func(ctx context.Context) (bool, error) {
		v, found, err := s.secretValue(ctx, ArgoNamespace, "argocd-initial-admin-secret", "password")
		password = v
		return found && err == nil, err
	}); err != nil {
		return err
	}
	if err := s.login(ctx, password); err != nil {
		return failed(server, err)
	}
	return nil
}

// argoEnv runs ArgoCD out of cluster against the kubeconfig, with every path it would
// otherwise share (askpass socket, temp dir, TLS/SSH/GPG data) inside this stack's dir.
func (s *Stack) argoEnv() ([]string, error) {
	al := filepath.Join(s.Dir, "argocd")
	dirs := map[string]string{
		"ARGOCD_TLS_DATA_PATH": filepath.Join(al, "tls"),
		"ARGOCD_SSH_DATA_PATH": filepath.Join(al, "ssh"),
		"ARGOCD_GNUPGHOME":     filepath.Join(al, "gpg", "keys"),
		"ARGOCD_GPG_DATA_PATH": filepath.Join(al, "gpg", "source"),
		"TMPDIR":               filepath.Join(al, "tmp"),
	}
	env := []string{
		"ARGOCD_FAKE_IN_CLUSTER=true", "KUBECONFIG=" + s.Kubeconfig, "ARGOCD_GPG_ENABLED=false",
		"ARGOCD_ASK_PASS_SOCK=" + filepath.Join(al, "askpass.sock"),
	}
	for k, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		env = append(env, k+"="+d)
	}
	// Holds the role-named links to the multi-call binary.
	return env, os.MkdirAll(filepath.Join(s.Dir, "bin"), 0o755)
}
