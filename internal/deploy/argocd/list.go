package argocd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

// ApplicationList is argocd-server's answer to a list; Items is null when nothing matches.
type ApplicationList struct {
	Items []Application `json:"items"`
}

// ListApplications lists the applications of every project that match a label selector, in
// one call: each tenant's apps are in the tenant's own project.
func (c *Client) ListApplications(ctx context.Context, selector string) ([]Application, error) {
	q := url.Values{}
	if selector != "" {
		q.Set("selector", selector)
	}
	var list ApplicationList
	if err := c.do(ctx, request{op: "list applications", method: http.MethodGet, path: "/api/v1/applications", query: q}, &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// slipwaySelector picks the Applications slipway made: they carry both instance labels.
const slipwaySelector = LabelTenant + "," + LabelName

var _ deploy.Lister = (*Deployer)(nil)

// Connection names this ArgoCD connection (server, project, destination) without the token,
// so workers configured alike share one observer.
func (d *Deployer) Connection() string {
	sum := sha256.Sum256([]byte(d.c.base.String() + "\x00" + d.c.project + "\x00" + d.c.destination))
	return d.Name() + "-" + hex.EncodeToString(sum[:])[:10]
}

// Detail fills each resource's health and cluster-status from the live resource tree, which
// ArgoCD 3 no longer copies into the Application's status: an object in the tree is Present
// with its health, one missing from it is NotPresent.
func (d *Deployer) Detail(ctx context.Context, app contract.AppStatus) (contract.AppStatus, error) {
	if !app.Deployed || app.Application == "" {
		return app, nil
	}
	a, err := d.c.FindApplication(ctx, app.Application)
	if err != nil || a == nil {
		return app, err
	}
	if Unreachable(a) != "" || downWhy(a, d.downClusters(ctx)) != "" {
		return app, nil // the tree of a cluster nobody reaches says nothing: its resources stay Unknown
	}
	tree, err := d.c.inProject(a.Spec.Project).ResourceTree(ctx, app.Application)
	if err != nil {
		return app, err
	}
	live := map[resourceKey]*HealthStatus{}
	for _, n := range tree.Nodes {
		h := n.Health
		if h == nil {
			h = &HealthStatus{}
		}
		live[resourceKey{n.Group, n.Kind, n.Namespace, n.Name}] = h
	}
	out := app
	out.Resources = make([]contract.Resource, len(app.Resources))
	for i, r := range app.Resources {
		h, ok := live[resourceKey{r.Group, r.Kind, r.Namespace, r.Name}]
		switch {
		case !ok:
			r.ClusterStatus, r.Health = "NotPresent", HealthMissing
		default:
			r.ClusterStatus = "Present"
			if h.Status != "" {
				r.Health, r.Message = h.Status, h.Message
			}
		}
		out.Resources[i] = r
	}
	return out, nil
}

// List reads every slipway Application in one call and reports each instance's app, keyed by
// TENANT/NAME from its labels. Applications being deleted are reported as they are.
func (d *Deployer) List(ctx context.Context) (map[string]contract.AppStatus, error) {
	apps, err := d.c.ListApplications(ctx, slipwaySelector)
	if err != nil {
		return nil, err
	}
	var down map[string]string
	if len(apps) > 0 {
		down = d.downClusters(ctx) // one call a sweep: which destinations ArgoCD cannot reach
	}
	out := make(map[string]contract.AppStatus, len(apps))
	placed := map[string][]Application{}
	for i := range apps {
		a := &apps[i]
		ref := contract.Ref{Tenant: a.Metadata.Labels[LabelTenant], Name: a.Metadata.Labels[LabelName]}
		if ref.Tenant == "" || ref.Name == "" {
			continue
		}
		if a.Metadata.Labels[LabelCluster] != "" {
			// One of the instance's Applications on several clusters: reported together below.
			placed[ref.String()] = append(placed[ref.String()], *a)
			continue
		}
		out[ref.String()] = markDown(d.appStatus(a, deploy.App{Ref: ref, Application: a.Metadata.Name}), a, down)
	}
	for key, as := range placed {
		if _, single := out[key]; single {
			continue
		}
		ref := contract.Ref{Tenant: as[0].Metadata.Labels[LabelTenant], Name: as[0].Metadata.Labels[LabelName]}
		out[key] = d.fromApps(deploy.App{Ref: ref, Application: strings.TrimSuffix(as[0].Metadata.Name, "-"+as[0].Metadata.Labels[LabelCluster])}, as)
	}
	return out, nil
}
