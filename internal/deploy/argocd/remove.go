package argocd

import (
	"context"
	"errors"
	"fmt"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

// RemovedMessage is the status message after Remove.
const RemovedMessage = "application and its resources deleted"

// Remove deletes the instance's Application with cascade and waits until it is gone (its
// finalizer deletes the resources first), takes the namespace out of the tenant's project,
// then deletes the namespace with the Secret in it. Gone already is success. An Application
// or namespace that is not the instance's is never deleted: the step fails naming it. An app
// placed on several clusters is removed from each that answers; the rest is a *LeftOnClustersError.
func (d *Deployer) Remove(ctx context.Context, app deploy.App) (contract.AppStatus, error) {
	if err := validate(app, false); err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	// Whatever the placement is now, the apps on every cluster the instance was placed on go; a
	// cluster that does not answer is left and named, after the others have gone.
	left := d.removePlaced(ctx, app, nil, nil)
	var lc *LeftOnClustersError
	if left != nil && !errors.As(left, &lc) {
		return contract.AppStatus{Deployer: d.Name()}, left
	}
	st, err := d.removeOne(ctx, app)
	if err != nil {
		return st, errors.Join(left, err)
	}
	if left != nil {
		st.Deployed = true // not everywhere: what is left is on record as leftovers
		st.Message = left.Error()
	}
	return st, left
}

// removeOne removes app's one Application, by its name, and its namespace on d's cluster.
func (d *Deployer) removeOne(ctx context.Context, app deploy.App) (contract.AppStatus, error) {
	removed := contract.AppStatus{Deployer: d.Name(), Deployed: false, Message: RemovedMessage}
	cur, err := d.c.FindApplication(ctx, app.Application)
	if err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	if cur != nil && !owns(cur, app) {
		return contract.AppStatus{Deployer: d.Name()}, notOwned(cur, app)
	}
	if cur != nil {
		if st, err := d.in(cur.Spec.Project).removeApp(ctx, app); err != nil {
			return st, err
		}
	}
	if app.Namespace != "" {
		var also []ApplicationDestination
		if cur != nil && cur.Spec.Destination.Namespace == app.Namespace {
			also = append(also, cur.Spec.Destination)
		}
		if err := d.dismiss(ctx, app, also...); err != nil {
			return contract.AppStatus{Deployer: d.Name()}, err
		}
		if d.kube != nil {
			if err := d.removeNamespace(ctx, app); err != nil {
				return contract.AppStatus{Deployer: d.Name()}, err
			}
		}
	}
	return removed, nil
}

// removeApp deletes the Application with cascade and waits until it is gone.
func (d *Deployer) removeApp(ctx context.Context, app deploy.App) (contract.AppStatus, error) {
	name := app.Application
	if err := d.c.DeleteApplication(ctx, name, true); err != nil {
		return contract.AppStatus{Deployer: d.Name()}, err
	}
	var nf *NotFoundError
	for {
		a, err := d.c.GetApplication(ctx, name)
		if errors.As(err, &nf) {
			return contract.AppStatus{}, nil
		}
		if err != nil {
			return contract.AppStatus{Deployer: d.Name()}, err
		}
		heartbeat(ctx, "deleting "+progress(a))
		if err := sleep(ctx, d.c.poll); err != nil {
			st := d.appStatus(a, app)
			return st, fmt.Errorf("argocd: waiting for application %s to be deleted (%s): %w", name, st.Message, err)
		}
	}
}
