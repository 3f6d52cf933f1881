package deploy

import (
	"context"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
)

// NoneMessage is what status shows when no deployer is configured.
const NoneMessage = "deployer: none — nothing was applied to a cluster; the app is not running"

// None is the deployer that deploys nothing. Every resource stays Pending and
// Unknown, and Deployed is false, so Running (and Ready) never become True.
type None struct{}

func (None) Name() string { return "none" }

func (n None) Deploy(_ context.Context, app App, _ time.Time) (contract.AppStatus, error) {
	return n.status(app), nil
}

func (n None) Status(_ context.Context, app App) (contract.AppStatus, error) {
	return n.status(app), nil
}

func (n None) Remove(_ context.Context, app App) (contract.AppStatus, error) {
	return contract.AppStatus{Deployer: n.Name(), Message: "deployer: none — there was nothing to remove"}, nil
}

func (n None) status(app App) contract.AppStatus {
	st := contract.AppStatus{Deployer: n.Name(), Health: "Unknown", Sync: "Unknown", Message: NoneMessage}
	for _, o := range app.Objects {
		group, version := splitAPIVersion(o.APIVersion)
		st.Resources = append(st.Resources, contract.Resource{
			App: app.Ref.Name, Cluster: "none", Group: group, Version: version, Kind: o.Kind,
			Namespace: o.Namespace, Name: o.Name, RsyncStatus: "Pending", ClusterStatus: "Unknown",
		})
	}
	return st
}

func splitAPIVersion(av string) (group, version string) {
	if g, v, ok := strings.Cut(av, "/"); ok {
		return g, v
	}
	return "", av
}
