package argocd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
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

// UpdateApplication sets the fields slipway owns on an existing application and keeps every
// other field as the application has it now: it reads the complete object, sets its own labels,
// finalizer, project, source and destination in it, and writes it all back
// (PUT /api/v1/applications/{name}?validate=false). An operator's annotations, labels,
// ignoreDifferences, syncPolicy or source options survive every deploy; slipway's typed
// Application knows only a subset of v1alpha1, so it is never what is written over the object.
func (c *Client) UpdateApplication(ctx context.Context, app Application) (*Application, error) {
	name := app.Metadata.Name
	if err := requireName(name); err != nil {
		return nil, err
	}
	obj, err := c.applicationObject(ctx, name)
	if err != nil {
		return nil, err
	}
	setOwnFields(obj, app)
	var out Application
	q := c.projectQuery()
	q.Set("validate", "false")
	err = c.do(ctx, request{op: "update application " + name, method: http.MethodPut,
		path: appPath(name, ""), query: q, body: obj}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// applicationObject reads the complete application called name as JSON, every field kept
// (listed by name, as FindApplication does); a missing one is a *NotFoundError.
func (c *Client) applicationObject(ctx context.Context, name string) (map[string]any, error) {
	op := "read application " + name
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	err := c.do(ctx, request{op: op, method: http.MethodGet, path: "/api/v1/applications", query: url.Values{"name": {name}}}, &list)
	if err != nil {
		return nil, err
	}
	for _, raw := range list.Items {
		obj, err := decodeObject(raw)
		if err != nil {
			return nil, fmt.Errorf("argocd: %s: %w", op, err)
		}
		if meta, _ := obj["metadata"].(map[string]any); meta != nil && meta["name"] == name {
			return obj, nil
		}
	}
	return nil, &NotFoundError{Op: op, Message: fmt.Sprintf("application '%s' not found", name)}
}

// decodeObject decodes a JSON object keeping numbers as written.
func decodeObject(raw []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil || obj == nil {
		return nil, errors.Join(errors.New("the application is not a JSON object"), err)
	}
	return obj, nil
}

// setOwnFields writes the fields slipway owns from want into the application object obj:
// its ownership labels, its finalizer, the project, the source's repo, path and revision, and
// the destination. Status and any requested operation are dropped: a write never carries them.
func setOwnFields(obj map[string]any, want Application) {
	delete(obj, "status")
	delete(obj, "operation")
	meta := child(obj, "metadata")
	labels := child(meta, "labels")
	for k, v := range want.Metadata.Labels {
		labels[k] = v
	}
	if _, behind := want.Metadata.Labels[LabelBehind]; !behind {
		delete(labels, LabelBehind) // this write brings the app to its revision: not behind
	}
	fin, _ := meta["finalizers"].([]any)
	for _, f := range want.Metadata.Finalizers {
		if !slices.Contains(fin, any(f)) {
			fin = append(fin, f)
		}
	}
	if len(fin) > 0 {
		meta["finalizers"] = fin
	}
	spec := child(obj, "spec")
	spec["project"] = want.Spec.Project
	if s := want.Spec.Source; s != nil {
		delete(spec, "sources") // slipway's one source is where the manifests come from
		src := child(spec, "source")
		src["repoURL"], src["path"], src["targetRevision"] = s.RepoURL, s.Path, s.TargetRevision
	}
	setSyncPolicy(spec, want.Spec.SyncPolicy)
	dest := child(spec, "destination")
	for k, v := range map[string]string{"server": want.Spec.Destination.Server, "name": want.Spec.Destination.Name,
		"namespace": want.Spec.Destination.Namespace} {
		if v == "" {
			delete(dest, k) // server and name exclude each other
		} else {
			dest[k] = v
		}
	}
}

// child is obj[key] as an object, made when missing or not an object.
func child(obj map[string]any, key string) map[string]any {
	m, ok := obj[key].(map[string]any)
	if !ok {
		m = map[string]any{}
		obj[key] = m
	}
	return m
}
