package argocd

import (
	"context"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/kubeapi"
)

// Names slipway puts on its Applications.
const (
	LabelTenant = "slipway.dev/tenant"
	LabelName   = "slipway.dev/name"
	// LabelCluster marks an Application as the instance's on one of several clusters it is placed on.
	LabelCluster = "slipway.dev/cluster"
	// LabelBehind marks a placed Application pointed at a revision while its cluster was down,
	// not synced: its value is that revision, which the observer syncs once the cluster answers
	// (CatchUp). A deploy that reaches the cluster takes it off.
	LabelBehind = "slipway.dev/behind"
	// Finalizer makes deleting the Application delete its resources first.
	Finalizer = "resources-finalizer.argocd.argoproj.io"
)

// Deployer is the deploy.Deployer that drives ArgoCD.
type Deployer struct {
	c *Client
	// kube creates namespaces and applies secrets on the destination cluster; nil deploys
	// stacks without secrets into namespaces that exist already (unit tests).
	kube *kubeapi.Client
	// kubeconfig has a context per further cluster apps are placed on (WithKubeconfig).
	kubeconfig string
	// placedOn is the cluster this deployer's apps are placed on, one of several; "" otherwise.
	placedOn string
	// behind is the revision its app is pointed at but not synced to (LabelBehind); "" when synced.
	behind string
}

var _ deploy.Deployer = (*Deployer)(nil)

// DeployerOption configures a Deployer.
type DeployerOption func(*Deployer)

// WithKube gives the deployer a credential for the destination cluster (SLIPWAY_KUBECONFIG):
// it creates each instance's namespace and applies its bootstrapped secrets there itself.
func WithKube(k *kubeapi.Client) DeployerOption { return func(d *Deployer) { d.kube = k } }

// NewDeployer returns a Deployer using c.
func NewDeployer(c *Client, opts ...DeployerOption) *Deployer {
	d := &Deployer{c: c}
	for _, o := range opts {
		o(d)
	}
	return d
}

// Name is "argocd".
func (d *Deployer) Name() string { return "argocd" }

// in is d with per-app calls in project p.
func (d *Deployer) in(p string) *Deployer {
	return &Deployer{c: d.c.inProject(p), kube: d.kube, kubeconfig: d.kubeconfig, placedOn: d.placedOn, behind: d.behind}
}

// desired is the Application for app at its revision, in its project. It carries no
// secret (they go to the cluster as a Secret, applySecrets) and creates no namespace: the
// project permits no cluster-scoped kind, and the deployer made the namespace already.
func (d *Deployer) desired(app deploy.App) Application {
	project, dest, _ := d.placement(app)
	labels := map[string]string{LabelTenant: app.Ref.Tenant, LabelName: app.Ref.Name}
	if d.behind != "" {
		labels[LabelBehind] = d.behind
	}
	if d.placedOn != "" {
		labels[LabelCluster] = d.placedOn
	}
	return Application{
		Metadata: ObjectMeta{
			Name:       app.Application,
			Labels:     labels,
			Finalizers: []string{Finalizer},
		},
		Spec: ApplicationSpec{
			Project:     project,
			Source:      &ApplicationSource{RepoURL: app.RepoURL, Path: app.Path, TargetRevision: app.Revision},
			Destination: dest,
			SyncPolicy:  syncPolicy(app.Sync),
		},
	}
}

// placement is the project and destination of app's Application: the ones its stack names,
// else the tenant's own project on the deployer's cluster. own says the project is the
// tenant's, which slipway makes and keeps; an operator's project slipway never changes.
func (d *Deployer) placement(app deploy.App) (project string, dest ApplicationDestination, own bool) {
	p := app.Placement
	dest = ApplicationDestination{Server: d.c.destination, Namespace: app.Namespace}
	switch {
	case p.Cluster != "":
		dest = ApplicationDestination{Name: p.Cluster, Namespace: app.Namespace}
	case p.Server != "":
		dest.Server = p.Server
	}
	if p.Project != "" {
		return p.Project, dest, false
	}
	return ProjectName(app.Ref.Tenant), dest, true
}

// owns reports whether a is the Application slipway made for app's instance: its labels name it.
func owns(a *Application, app deploy.App) bool { return ownedBy(a.Metadata.Labels, app) }

// notOwned is the refusal to touch a, which is not app's.
func notOwned(a *Application, app deploy.App) error {
	return &deploy.NotOwnedError{Kind: "ArgoCD application", Name: a.Metadata.Name, Ref: app.Ref.String(), Owner: owner(a.Metadata.Labels)}
}

// validate names the first missing field of app; full asks for what Deploy needs.
func validate(app deploy.App, full bool) error {
	fields := []struct{ name, value string }{{"app.Ref.Tenant", app.Ref.Tenant}, {"app.Ref.Name", app.Ref.Name},
		{"app.Application", app.Application}}
	if full {
		fields = append(fields, []struct{ name, value string }{
			{"app.Namespace", app.Namespace}, {"app.RepoURL", app.RepoURL},
			{"app.Path", app.Path}, {"app.Revision", app.Revision},
		}...)
	}
	for _, f := range fields {
		if strings.TrimSpace(f.value) == "" {
			return &InvalidInputError{Field: f.name, Reason: "must not be empty"}
		}
	}
	return nil
}

// heartbeat reports progress when running inside a Temporal activity.
func heartbeat(ctx context.Context, details ...any) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, details...)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func sameRevision(a, b string) bool {
	return a != "" && strings.EqualFold(a, b)
}
