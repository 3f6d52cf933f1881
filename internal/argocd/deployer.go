package argocd

import (
	"context"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/deploy"
)

// Names slipway puts on its Applications.
const (
	LabelTenant = "slipway.dev/tenant"
	LabelName   = "slipway.dev/name"
	// Finalizer makes deleting the Application delete its resources first.
	Finalizer = "resources-finalizer.argocd.argoproj.io"
)

// Deployer is the deploy.Deployer that drives ArgoCD.
type Deployer struct {
	c *Client
}

var _ deploy.Deployer = (*Deployer)(nil)

// NewDeployer returns a Deployer using c.
func NewDeployer(c *Client) *Deployer { return &Deployer{c: c} }

// Name is "argocd".
func (d *Deployer) Name() string { return "argocd" }

// desired is the Application for app at its revision. The instance's secrets go
// in as jsonnet top-level arguments: they reach the cluster without entering git.
func (d *Deployer) desired(app deploy.App) Application {
	src := &ApplicationSource{RepoURL: app.RepoURL, Path: app.Path, TargetRevision: app.Revision}
	if len(app.Secrets) > 0 {
		src.Directory = &ApplicationSourceDirectory{}
		for _, name := range sortedNames(app.Secrets) {
			src.Directory.Jsonnet.TLAs = append(src.Directory.Jsonnet.TLAs, JsonnetVar{Name: name, Value: app.Secrets[name]})
		}
	}
	return Application{
		Metadata: ObjectMeta{
			Name:       app.Application,
			Labels:     map[string]string{LabelTenant: app.Ref.Tenant, LabelName: app.Ref.Name},
			Finalizers: []string{Finalizer},
		},
		Spec: ApplicationSpec{
			Project:     d.c.project,
			Source:      src,
			Destination: ApplicationDestination{Server: d.c.destination, Namespace: app.Namespace},
			SyncPolicy:  &SyncPolicy{SyncOptions: []string{"CreateNamespace=true"}},
		},
	}
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

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
