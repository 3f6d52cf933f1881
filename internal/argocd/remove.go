package argocd

import (
	"context"
	"errors"
	"fmt"

	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/steps"
)

// RemovedMessage is the status message after Remove.
const RemovedMessage = "application and its resources deleted"

// Remove deletes the Application with cascade and waits until it is gone: its finalizer
// deletes the resources first, the Namespace object among them. Gone already is success.
func (d *Deployer) Remove(ctx context.Context, app deploy.App) (steps.AppStatus, error) {
	removed := steps.AppStatus{Deployer: d.Name(), Deployed: false, Message: RemovedMessage}
	if err := validate(app, false); err != nil {
		return steps.AppStatus{Deployer: d.Name()}, err
	}
	name := app.Application
	if err := d.c.DeleteApplication(ctx, name, true); err != nil {
		return steps.AppStatus{Deployer: d.Name()}, err
	}
	var nf *NotFoundError
	for {
		a, err := d.c.GetApplication(ctx, name)
		if errors.As(err, &nf) {
			return removed, nil
		}
		if err != nil {
			return steps.AppStatus{Deployer: d.Name()}, err
		}
		heartbeat(ctx, "deleting "+progress(a))
		if err := sleep(ctx, d.c.poll); err != nil {
			st := d.appStatus(a, app)
			return st, fmt.Errorf("argocd: waiting for application %s to be deleted (%s): %w", name, st.Message, err)
		}
	}
}
