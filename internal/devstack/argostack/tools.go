package argostack

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/localdirs"
)

const (
	// KubernetesVersion and ArgoCDVersion are what scripts/tools.sh builds (targets kubernetes, argocd).
	KubernetesVersion = "v1.36.3"
	ArgoCDVersion     = "v3.2.11"

	argoModule = "github.com/argoproj/argo-cd/v3"
)

var crdFiles = []string{"application-crd.yaml", "appproject-crd.yaml"}

// tools are the absolute paths of everything Start runs or reads.
type tools struct {
	etcd, redis, apiserver, controllerManager, argocd string
	crdDir                                            string // holds crdFiles
}

// findTools looks in the tool cache for the built binaries and on PATH for Debian's etcd and redis.
func findTools(toolsDir string) (tools, error) {
	k8sDir := filepath.Join(toolsDir, "kubernetes-"+KubernetesVersion)
	argoDir := filepath.Join(toolsDir, "argocd-"+ArgoCDVersion)
	tl := tools{
		apiserver:         filepath.Join(k8sDir, "kube-apiserver"),
		controllerManager: filepath.Join(k8sDir, "kube-controller-manager"),
		argocd:            filepath.Join(argoDir, "argocd"),
	}
	for _, c := range []struct{ name, path string }{
		{"kube-apiserver", tl.apiserver}, {"kube-controller-manager", tl.controllerManager}, {"argocd", tl.argocd},
	} {
		if err := executable(c.path); err != nil {
			return tl, &MissingToolError{Component: c.name, Path: c.path, Err: err}
		}
	}
	for _, c := range []struct {
		name string
		dst  *string
	}{{"etcd", &tl.etcd}, {"redis-server", &tl.redis}} {
		p, err := exec.LookPath(c.name)
		if err != nil {
			return tl, &MissingToolError{Component: c.name, Path: "PATH", Err: err}
		}
		*c.dst = p
	}
	dir, err := findCRDs(filepath.Join(argoDir, "crds"))
	if err != nil {
		return tl, err
	}
	tl.crdDir = dir
	return tl, nil
}

// findCRDs prefers the copy tools.sh keeps beside the binary, else the module cache (never the network).
func findCRDs(cached string) (string, error) {
	if hasCRDs(cached) == nil {
		return cached, nil
	}
	modDir, err := localdirs.ModuleDir(argoModule, ArgoCDVersion)
	if err != nil {
		return "", &MissingToolError{Component: "ArgoCD CRDs", Path: cached + " or the Go module cache", Err: err}
	}
	dir := filepath.Join(modDir, "manifests", "crds")
	if err := hasCRDs(dir); err != nil {
		return "", &MissingToolError{Component: "ArgoCD CRDs", Path: dir, Err: err}
	}
	return dir, nil
}

func hasCRDs(dir string) error {
	for _, f := range crdFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return err
		}
	}
	return nil
}

func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return errors.New("not an executable file")
	}
	return nil
}
