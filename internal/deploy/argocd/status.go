package argocd

import (
	"context"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

// Status reads the Application without changing anything; none means not deployed.
func (d *Deployer) Status(ctx context.Context, app deploy.App) (contract.AppStatus, error) {
	if err := validate(app, false); err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	a, err := d.c.FindApplication(ctx, app.Application)
	switch {
	case err != nil:
		return contract.AppStatus{Deployer: d.Name()}, err
	case a == nil:
		// An app placed on several clusters has an Application per cluster, none by this name.
		return d.statusPlaced(ctx, app)
	case !owns(a, app):
		// Someone else's app is not the instance's: it is reported as such, never as its status.
		return contract.AppStatus{Deployer: d.Name(), Deployed: false, Message: "no application"}, notOwned(a, app)
	}
	return markDown(d.appStatus(a, app), a, d.downClusters(ctx)), nil
}
