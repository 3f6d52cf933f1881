package argocd

import (
	"context"
	"net/http"
	"net/url"
)

// writeBody is what slipway sends: metadata and spec only, never status or an operation.
type writeBody struct {
	Metadata ObjectMeta      `json:"metadata"`
	Spec     ApplicationSpec `json:"spec"`
}

// CreateApplication creates the application (POST /api/v1/applications?upsert=false&validate=false).
// Never upsert: that would replace an Application someone else made under the same name.
// validate=false because the repo may not be registered with ArgoCD ahead of time; the project's
// destinations and source repos are checked all the same.
func (c *Client) CreateApplication(ctx context.Context, app Application) (*Application, error) {
	if err := requireName(app.Metadata.Name); err != nil {
		return nil, err
	}
	var out Application
	q := url.Values{"upsert": {"false"}, "validate": {"false"}}
	err := c.do(ctx, request{op: "create application " + app.Metadata.Name, method: http.MethodPost,
		path: "/api/v1/applications", query: q, body: writeBody{app.Metadata, app.Spec}}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateApplication replaces an existing application's spec, labels and finalizers
// (PUT /api/v1/applications/{name}?validate=false).
func (c *Client) UpdateApplication(ctx context.Context, app Application) (*Application, error) {
	name := app.Metadata.Name
	if err := requireName(name); err != nil {
		return nil, err
	}
	var out Application
	q := c.projectQuery()
	q.Set("validate", "false")
	err := c.do(ctx, request{op: "update application " + name, method: http.MethodPut,
		path: appPath(name, ""), query: q, body: writeBody{app.Metadata, app.Spec}}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
