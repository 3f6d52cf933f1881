// Package deploy puts an instance's manifests on a cluster. It holds the Deployer
// interface (and Lister, for deployers one observer can watch a fleet through), the
// App it deploys, NotOwnedError, and None, which applies nothing and says so, so
// status never claims Healthy for something nobody deployed. The ArgoCD deployer,
// the real backend, is internal/deploy/argocd.
package deploy

import (
	"context"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// App is one instance's application: its manifests at a GitOps revision.
type App struct {
	Ref       contract.Ref
	Namespace string
	// Application is the deployer's name for the app (the instance's recorded names.Application).
	Application string
	RepoURL     string
	Path        string // repo-relative manifests directory
	Revision    string
	// Objects are the manifests' identities, so a deployer can report on each.
	Objects []Object
	// Secrets are the instance's bootstrapped secrets, read on the worker: a
	// deployer hands them to the cluster and never logs or returns them.
	Secrets map[string]string
	// Placement is where the stack puts its apps (its schema's argocd:); zero is the deployer's default.
	Placement Placement
	// Recreate deletes and creates the app's objects again (new UIDs) rather than applying them.
	Recreate bool
	// Sync is the stack's sync: (automated sync, self-heal); nil leaves the deployer's app as it is.
	Sync *Sync
	// Drain runs the stack's drain hook before the app leaves a cluster its placement no longer
	// picks; nil drains nothing. It runs on the worker, in the deploy's step.
	Drain func(ctx context.Context, cluster string) error `json:"-"`
}

// Sync asks the deployer to keep the app in sync by itself between deploys.
type Sync struct {
	Automated, SelfHeal bool
}

// Placement is a stack's project and destination cluster for its apps.
type Placement struct {
	Project string // an operator's project; "" is the tenant's own
	Server  string // the destination cluster's API URL; "" is the deployer's
	Cluster string // or the destination cluster's name in the deployer
	// Clusters and Selector place the app on several clusters, one app each: named, or
	// selected by their labels in the deployer (matchLabels). They take the place of Server and Cluster.
	Clusters []string
	Selector map[string]string
	// Field names the placement in errors: schema.placement, or the instance's placement.
	Field string
}

// Several says the app is placed on a set of clusters rather than the one destination.
func (p Placement) Several() bool { return len(p.Clusters) > 0 || len(p.Selector) > 0 }

// Object identifies one manifest object.
type Object struct {
	APIVersion, Kind, Namespace, Name string
}

// Deployer ensures, inspects and removes apps. Every method is idempotent.
type Deployer interface {
	Name() string
	// Deploy ensures the app at app.Revision, syncs it and waits for Synced+Healthy until deadline.
	Deploy(ctx context.Context, app App, deadline time.Time) (contract.AppStatus, error)
	// Status reads the app and its resources without changing anything.
	Status(ctx context.Context, app App) (contract.AppStatus, error)
	// Remove deletes the app and its namespace and waits until they are gone.
	Remove(ctx context.Context, app App) (contract.AppStatus, error)
}

// Lister is a deployer that can report every instance's app in one call, so one observer per
// connection watches a whole fleet. Deployers that deploy nothing (None) are not Listers.
type Lister interface {
	// Connection names the deployer connection; workers configured alike return the same.
	Connection() string
	// List reports the app of every instance the deployer holds, keyed by TENANT/NAME.
	List(ctx context.Context) (map[string]contract.AppStatus, error)
	// Detail adds what a list leaves out (each resource's live health and presence) to one
	// listed app; the observer asks only for apps that changed and are not healthy.
	Detail(ctx context.Context, app contract.AppStatus) (contract.AppStatus, error)
}
