package argocd

import (
	"context"
	"net/http"
)

// syncRequest is argocd-server's ApplicationSyncRequest (the fields slipway sets).
type syncRequest struct {
	Name     string `json:"name"`
	Revision string `json:"revision,omitempty"`
	Prune    bool   `json:"prune"`
	Project  string `json:"project,omitempty"`
}

// Sync asks ArgoCD to sync the application to revision (POST /api/v1/applications/{name}/sync).
// While another operation runs ArgoCD refuses with "another operation is already in progress".
func (c *Client) Sync(ctx context.Context, name, revision string, prune bool) error {
	if err := requireName(name); err != nil {
		return err
	}
	body := syncRequest{Name: name, Revision: revision, Prune: prune, Project: c.project}
	return c.do(ctx, request{op: "sync application " + name, method: http.MethodPost, path: appPath(name, "/sync"), body: body}, nil)
}
