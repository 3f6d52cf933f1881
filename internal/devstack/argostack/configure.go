package argostack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// configure applies ArgoCD's CRDs, waits until they are established, then applies argoConfig.
func (s *Stack) configure(ctx context.Context, tl tools) error {
	api := s.proc("kube-apiserver")
	for _, f := range crdFiles {
		data, err := os.ReadFile(filepath.Join(tl.crdDir, f))
		if err != nil {
			return err
		}
		if err := s.apply(ctx, data); err != nil {
			return failed(api, fmt.Errorf("apply %s: %w", f, err))
		}
		name := strings.TrimSuffix(f, "-crd.yaml") + "s.argoproj.io"
		if err := waitReady(ctx, api, "CRD "+name+" established", func(ctx context.Context) (bool, error) {
			return s.crdEstablished(ctx, name)
		}); err != nil {
			return err
		}
	}
	// Established can precede the new kind being served for a moment, so retry the apply.
	return waitReady(ctx, api, "apply argocd config", func(ctx context.Context) (bool, error) {
		err := s.apply(ctx, argoConfig)
		return err == nil, err
	})
}

// proc returns the started component called name (nil if none).
func (s *Stack) proc(name string) *process {
	for _, p := range s.procs {
		if p.Name == name {
			return p
		}
	}
	return nil
}
