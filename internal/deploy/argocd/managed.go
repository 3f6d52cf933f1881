package argocd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

// Masked replaces every value of a Secret's data and stringData in what slipway shows.
const Masked = "[masked]"

// ManagedResources is GET .../managed-resources: each resource's target (rendered from git)
// and live state, as JSON text ("null" when absent).
type ManagedResources struct {
	Items []ResourceDiff `json:"items,omitempty"`
}

// ResourceDiff is one managed resource's states.
type ResourceDiff struct {
	Group       string `json:"group,omitempty"`
	Kind        string `json:"kind,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	TargetState string `json:"targetState,omitempty"`
	LiveState   string `json:"liveState,omitempty"`
}

// ManagedResources reads the application's managed resources.
func (c *Client) ManagedResources(ctx context.Context, name string) (*ManagedResources, error) {
	if err := requireName(name); err != nil {
		return nil, err
	}
	var m ManagedResources
	err := c.do(ctx, request{op: "managed resources of " + name, method: http.MethodGet, path: appPath(name, "/managed-resources"), query: c.projectQuery()}, &m)
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// ResourceStates reads each resource of app's Application as ArgoCD holds it: the object it
// rendered from git at the synced revision, and the live one. Secrets are masked here, so
// their values never leave the worker. No application: none.
func (d *Deployer) ResourceStates(ctx context.Context, app deploy.App) ([]contract.ResourceState, error) {
	if err := validate(app, false); err != nil {
		return nil, err
	}
	a, err := d.c.FindApplication(ctx, app.Application)
	switch {
	case err != nil:
		return nil, err
	case a == nil:
		// An app placed on several clusters has an Application per cluster: each is read.
		return d.placedResourceStates(ctx, app)
	case !owns(a, app):
		return nil, notOwned(a, app)
	}
	return d.managedStates(ctx, a)
}

func (d *Deployer) placedResourceStates(ctx context.Context, app deploy.App) ([]contract.ResourceState, error) {
	apps, err := d.c.ListApplications(ctx, instanceSelector(app.Ref)+","+LabelCluster)
	if err != nil {
		return nil, err
	}
	var out []contract.ResourceState
	for i := range apps {
		if !isPlaced(&apps[i], app) {
			continue
		}
		rs, err := d.managedStates(ctx, &apps[i])
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// managedStates is what ArgoCD holds of a's resources: live and target, masked.
func (d *Deployer) managedStates(ctx context.Context, a *Application) ([]contract.ResourceState, error) {
	m, err := d.c.inProject(a.Spec.Project).ManagedResources(ctx, a.Metadata.Name)
	if err != nil {
		return nil, err
	}
	cluster := clusterName(a.Spec.Destination)
	out := make([]contract.ResourceState, 0, len(m.Items))
	for _, it := range m.Items {
		rs := contract.ResourceState{Cluster: cluster, Group: it.Group, Kind: it.Kind, Namespace: it.Namespace, Name: it.Name}
		if rs.Target, rs.Version, err = masked(it.TargetState); err != nil {
			return nil, fmt.Errorf("target state of %s/%s: %w", it.Kind, it.Name, err)
		}
		var v string
		if rs.Live, v, err = masked(it.LiveState); err != nil {
			return nil, fmt.Errorf("live state of %s/%s: %w", it.Kind, it.Name, err)
		}
		if rs.Version == "" {
			rs.Version = v
		}
		out = append(out, rs)
	}
	return out, nil
}

// masked is the object in s with a Secret's values masked and the bookkeeping that repeats
// them (managedFields, the last-applied annotation) left out; nil for none. It also returns
// the object's API version.
func masked(s string) (json.RawMessage, string, error) {
	if s == "" || s == "null" {
		return nil, "", nil
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(s), &obj); err != nil {
		return nil, "", err
	}
	if obj == nil {
		return nil, "", nil
	}
	MaskObject(obj)
	version, _ := obj["apiVersion"].(string)
	if _, v, ok := strings.Cut(version, "/"); ok {
		version = v
	}
	b, err := json.Marshal(obj)
	return b, version, err
}

// MaskObject masks a Kubernetes object in place: a Secret's data and stringData values become
// Masked, and managedFields and kubectl's last-applied annotation (a copy of the whole object,
// a Secret's values included) are dropped.
func MaskObject(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
		if an, ok := md["annotations"].(map[string]any); ok {
			delete(an, "kubectl.kubernetes.io/last-applied-configuration")
			if len(an) == 0 {
				delete(md, "annotations")
			}
		}
	}
	if kind, _ := obj["kind"].(string); kind != "Secret" {
		return
	}
	for _, field := range []string{"data", "stringData"} {
		if m, ok := obj[field].(map[string]any); ok {
			for k := range m {
				m[k] = Masked
			}
		}
	}
}
