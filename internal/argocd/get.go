package argocd

import (
	"context"
	"net/http"
)

// GetApplication reads one application; a missing one is a *NotFoundError.
func (c *Client) GetApplication(ctx context.Context, name string) (*Application, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	var app Application
	err := c.do(ctx, request{op: "get application " + name, method: http.MethodGet, path: appPath(name, ""), query: c.projectQuery()}, &app)
	if err != nil {
		return nil, err
	}
	return &app, nil
}
