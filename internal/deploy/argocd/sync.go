package argocd

import (
	"context"
	"net/http"
	"slices"
)

// syncRequest is argocd-server's ApplicationSyncRequest (the fields slipway sets).
type syncRequest struct {
	Name        string       `json:"name"`
	Revision    string       `json:"revision,omitempty"`
	Prune       bool         `json:"prune"`
	Project     string       `json:"project,omitempty"`
	SyncOptions *syncOptions `json:"syncOptions,omitempty"`
	// Strategy forces the apply: argocd-server reads Force from the strategy, not from syncOptions.
	Strategy *syncStrategy `json:"strategy,omitempty"`
}

type syncStrategy struct {
	Apply *syncStrategyApply `json:"apply,omitempty"`
}

type syncStrategyApply struct {
	Force bool `json:"force"`
}

// syncOptions are one sync's options (ArgoCD's SyncOptions: Replace=true, Force=true, ...).
type syncOptions struct {
	Items []string `json:"items"`
}

// RecreateOptions make a sync delete and create every object again (kubectl replace --force):
// new UIDs, as BOSH's recreate gives new VMs.
var RecreateOptions = []string{"Replace=true", "Force=true"}

// Sync asks ArgoCD to sync the application to revision (POST /api/v1/applications/{name}/sync).
// While another operation runs ArgoCD refuses with "another operation is already in progress".
func (c *Client) Sync(ctx context.Context, name, revision string, prune bool, options ...string) error {
	if err := requireName(name); err != nil {
		return err
	}
	body := syncRequest{Name: name, Revision: revision, Prune: prune, Project: c.project}
	if len(options) > 0 {
		body.SyncOptions = &syncOptions{Items: options}
	}
	if slices.Contains(options, "Force=true") {
		body.Strategy = &syncStrategy{Apply: &syncStrategyApply{Force: true}}
	}
	return c.do(ctx, request{op: "sync application " + name, method: http.MethodPost, path: appPath(name, "/sync"), body: body}, nil)
}
