package argocd

import (
	"context"
	"errors"

	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/steps"
)

// Status reads the Application without changing anything; none means not deployed.
func (d *Deployer) Status(ctx context.Context, app deploy.App) (steps.AppStatus, error) {
	if err := validate(app, false); err != nil {
		return steps.AppStatus{Deployer: d.Name()}, err
	}
	a, err := d.c.GetApplication(ctx, app.Application)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return steps.AppStatus{Deployer: d.Name(), Deployed: false, Message: "no application"}, nil
	}
	if err != nil {
		return steps.AppStatus{Deployer: d.Name()}, err
	}
	return d.appStatus(a, app), nil
}
