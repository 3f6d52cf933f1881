package activities

import (
	"context"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/observe"
)

// resourceReader is a deployer that can show each resource's rendered and live object.
type resourceReader interface {
	ResourceStates(ctx context.Context, app deploy.App) ([]contract.ResourceState, error)
}

// ResourceStates reads an instance's resources as the deployer holds them, without changing
// anything (status --detail detail and rsync). A deployer that cannot, or no app, gives none.
func (a *Activities) ResourceStates(ctx context.Context, in contract.ResourceStatesInput) ([]contract.ResourceState, error) {
	r, ok := a.Deployer.(resourceReader)
	if !ok {
		return nil, nil
	}
	d := in.Ref.Derived()
	out, err := r.ResourceStates(ctx, deploy.App{Ref: in.Ref, Namespace: d.Namespace, Application: d.Application})
	if err != nil {
		return nil, classify(err)
	}
	return out, nil
}

// removedResources are the app's resources before a removal, marked Terminated: what the
// deployer reports, or when it reports none (the app is gone already, a retry) the objects
// of the manifests at the revision.
func (a *Activities) removedResources(ctx context.Context, app deploy.App) []contract.Resource {
	var rs []contract.Resource
	if st, err := a.Deployer.Status(ctx, app); err == nil && st.Deployed {
		rs = st.Resources
	}
	if len(rs) == 0 {
		for _, o := range app.Objects {
			group, version := "", o.APIVersion
			if g, v, ok := strings.Cut(o.APIVersion, "/"); ok {
				group, version = g, v
			}
			rs = append(rs, contract.Resource{App: app.Ref.Name, Group: group, Version: version, Kind: o.Kind,
				Namespace: o.Namespace, Name: o.Name})
		}
	}
	return observe.Terminated(rs)
}
