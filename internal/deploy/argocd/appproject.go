package argocd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/deploy"
)

// ProjectPrefix starts the name of each tenant's AppProject: slipway-<tenant>.
const ProjectPrefix = "slipway-"

// LabelManagedBy marks what slipway created (AppProjects, namespaces, Secrets).
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	ManagedBy      = "slipway"
)

// ProjectName is tenant's AppProject. A tenant is a DNS label, so the name is a valid object name.
func ProjectName(tenant string) string { return ProjectPrefix + tenant }

// AppProject is an ArgoCD AppProject as the REST API returns it.
type AppProject struct {
	Metadata ObjectMeta     `json:"metadata"`
	Spec     AppProjectSpec `json:"spec"`
}

// AppProjectSpec is what a tenant's apps may deploy from and to. No cluster-scoped kind is
// listed, so none is permitted: the deployer creates the namespace itself.
type AppProjectSpec struct {
	Description  string                   `json:"description,omitempty"`
	SourceRepos  []string                 `json:"sourceRepos,omitempty"`
	Destinations []ApplicationDestination `json:"destinations,omitempty"`
}

// projectBody is argocd-server's ProjectCreateRequest and ProjectUpdateRequest.
type projectBody struct {
	Project AppProject `json:"project"`
	Upsert  bool       `json:"upsert,omitempty"`
}

// GetProject reads an AppProject; a missing one is a *NotFoundError.
func (c *Client) GetProject(ctx context.Context, name string) (*AppProject, error) {
	var p AppProject
	if err := c.do(ctx, request{op: "get project " + name, method: http.MethodGet, path: "/api/v1/projects/" + url.PathEscape(name)}, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// CreateProject creates an AppProject; one that exists is a *ConflictError or an *APIError.
func (c *Client) CreateProject(ctx context.Context, p AppProject) (*AppProject, error) {
	var out AppProject
	err := c.do(ctx, request{op: "create project " + p.Metadata.Name, method: http.MethodPost, path: "/api/v1/projects",
		body: projectBody{Project: AppProject{Metadata: ObjectMeta{Name: p.Metadata.Name, Labels: p.Metadata.Labels}, Spec: p.Spec}}}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateProject replaces an AppProject's spec at its resourceVersion: a concurrent change
// makes it fail rather than be lost.
func (c *Client) UpdateProject(ctx context.Context, p AppProject) (*AppProject, error) {
	var out AppProject
	err := c.do(ctx, request{op: "update project " + p.Metadata.Name, method: http.MethodPut,
		path: "/api/v1/projects/" + url.PathEscape(p.Metadata.Name), body: projectBody{Project: p}}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// projectRaces bounds how often one destination change is retried over concurrent changes of
// the same tenant's project; each retry waits up to projectBackoff.
const (
	projectRaces   = 50
	projectBackoff = 200 * time.Millisecond
)

// admit makes sure the tenant's project exists, is slipway's, takes its sources only from the
// GitOps repository (as the apps name it) and lists app's namespace among its destinations. Instances of one tenant
// deploying at once each retry on the other's change. A project the stack names is the
// operator's: admit only checks that it exists, and ArgoCD checks the destination against it.
func (d *Deployer) admit(ctx context.Context, app deploy.App) (string, error) {
	name, dest, own := d.placement(app)
	if !own {
		return name, d.operatorProject(ctx, name)
	}
	return name, d.changeProject(ctx, app, func(p *AppProject) bool {
		changed := false
		// The GitOps repository as the forge serves it, or its mirror while the forge is down.
		if !slices.Contains(p.Spec.SourceRepos, app.RepoURL) {
			p.Spec.SourceRepos = append(p.Spec.SourceRepos, app.RepoURL)
			changed = true
		}
		if !slices.Contains(p.Spec.Destinations, dest) {
			p.Spec.Destinations = append(p.Spec.Destinations, dest)
			changed = true
		}
		return changed
	}, true)
}

// operatorProject checks that the project a stack names exists; a missing one is bad stack input.
func (d *Deployer) operatorProject(ctx context.Context, name string) error {
	_, err := d.c.GetProject(ctx, name)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return &InvalidInputError{Field: "schema.argocd.project", Reason: fmt.Sprintf("ArgoCD has no project %q; the operator makes it, slipway only puts apps in it", name)}
	}
	return err
}

// dismiss takes app's namespace out of the tenant's project once the app is gone, at the
// destination the stack names and at each of also (where the live app was).
func (d *Deployer) dismiss(ctx context.Context, app deploy.App, also ...ApplicationDestination) error {
	_, dest, _ := d.placement(app)
	return d.drop(ctx, app, append([]ApplicationDestination{dest}, also...))
}

// drop takes the destinations gone out of the tenant's project.
func (d *Deployer) drop(ctx context.Context, app deploy.App, gone []ApplicationDestination) error {
	return d.changeProject(ctx, app, func(p *AppProject) bool {
		n := len(p.Spec.Destinations)
		p.Spec.Destinations = slices.DeleteFunc(p.Spec.Destinations, func(x ApplicationDestination) bool { return slices.Contains(gone, x) })
		return len(p.Spec.Destinations) != n
	}, false)
}

// changeProject reads the tenant's project, applies change and writes it back when it
// changed; create makes a missing project, otherwise a missing one needs no change.
func (d *Deployer) changeProject(ctx context.Context, app deploy.App, change func(*AppProject) bool, create bool) error {
	name := ProjectName(app.Ref.Tenant)
	for range projectRaces {
		p, err := d.c.GetProject(ctx, name)
		var nf *NotFoundError
		switch {
		case errors.As(err, &nf) && !create:
			return nil
		case errors.As(err, &nf):
			p = &AppProject{Metadata: ObjectMeta{Name: name, Labels: map[string]string{LabelManagedBy: ManagedBy, LabelTenant: app.Ref.Tenant}},
				Spec: AppProjectSpec{Description: "slipway tenant " + app.Ref.Tenant + ": its instances' namespaces only"}}
			change(p)
			_, err = d.c.CreateProject(ctx, *p)
			if err == nil || !isExists(err) {
				return err
			}
			continue // created meanwhile by another instance of the tenant
		case err != nil:
			return err
		}
		if p.Metadata.Labels[LabelManagedBy] != ManagedBy || p.Metadata.Labels[LabelTenant] != app.Ref.Tenant {
			return &deploy.NotOwnedError{Kind: "ArgoCD project", Name: name, Ref: app.Ref.String(), Owner: p.Metadata.Labels[LabelTenant]}
		}
		if !change(p) {
			return nil
		}
		_, err = d.c.UpdateProject(ctx, *p)
		if err == nil || !isStale(err) {
			return err
		}
		// Spread the writers of one tenant apart, so each next read sees the others' writes.
		if err := sleep(ctx, time.Duration(rand.Int64N(int64(projectBackoff)))); err != nil {
			return err
		}
	}
	return fmt.Errorf("argocd: project %s kept changing underneath; try again", name)
}

// isExists matches a create refused because the object is there already: the kube API's
// conflict, or argocd-server's 400 when the existing project's spec differs (another deploy of
// the tenant created it a moment before with its own namespace).
func isExists(err error) bool {
	var (
		conflict *ConflictError
		api      *APIError
	)
	return errors.As(err, &conflict) || (errors.As(err, &api) &&
		(strings.Contains(api.Message, "already exists") || strings.Contains(api.Message, "existing project spec is different")))
}

// isStale matches an update refused because the project changed since it was read: the kube
// API's conflict, or argocd-server finding that the write would drop what a concurrent deploy
// of the same tenant added ("as a result of project update N applications destination became
// invalid"), which it checks first.
func isStale(err error) bool {
	var (
		conflict *ConflictError
		api      *APIError
	)
	return errors.As(err, &conflict) || (errors.As(err, &api) &&
		(strings.Contains(api.Message, "has been modified") || strings.Contains(api.Message, "as a result of project update")))
}
