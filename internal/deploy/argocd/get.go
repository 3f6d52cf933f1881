package argocd

import (
	"context"
	"errors"
	"net/http"
	"net/url"
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

// FindApplication reads the application called name in whatever project it is (GET
// /api/v1/applications?name=), so an app outside slipway's projects is seen, never taken for
// missing; nil when there is none.
func (c *Client) FindApplication(ctx context.Context, name string) (*Application, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	var list ApplicationList
	err := c.do(ctx, request{op: "find application " + name, method: http.MethodGet, path: "/api/v1/applications",
		query: url.Values{"name": {name}}}, &list)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for i := range list.Items {
		if list.Items[i].Metadata.Name == name {
			return &list.Items[i], nil
		}
	}
	return nil, nil
}
