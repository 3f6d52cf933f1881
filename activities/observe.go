package activities

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/observe"
)

// Fleet is the instances' side of observation, kept in Temporal (internal/workerapp implements it
// on the worker's client): which instances an observer watches, with the fingerprint each one
// last recorded, and a way to tell one what was seen.
type Fleet interface {
	// Watched lists the running instances of taskQueue in a state the observer watches.
	Watched(ctx context.Context, taskQueue string) ([]WatchedInstance, error)
	// Tell signals an observation to an instance; one that has closed meanwhile is no error.
	Tell(ctx context.Context, ref contract.Ref, obs contract.Observation) error
}

// WatchedInstance is an instance and the app fingerprint it last recorded ("" for none yet).
type WatchedInstance struct {
	Ref         contract.Ref
	Fingerprint string
}

// ObserveApps is one sweep of the deployer: one list call for every app, compared with what each
// instance recorded, and a signal only to the instances whose app changed. Retrying it is safe:
// an instance told twice records the same fingerprint. Its one write: an app a deploy left
// behind on a cluster that was down is synced once the cluster answers (catchUp).
func (a *Activities) ObserveApps(ctx context.Context, in contract.ObserveAppsInput) (contract.ObserveAppsOutput, error) {
	out := contract.ObserveAppsOutput{At: time.Now().UTC()}
	lister, ok := a.Deployer.(deploy.Lister)
	if !ok {
		return out, fmt.Errorf("deployer %s cannot list its apps: nothing to observe", a.Deployer.Name())
	}
	var apps map[string]contract.AppStatus
	if !in.MarkStale {
		var err error
		if apps, err = lister.List(ctx); err != nil {
			return out, classify(err)
		}
		out.Apps = len(apps)
	}
	watched, err := a.Fleet.Watched(ctx, activity.GetInfo(ctx).TaskQueue)
	if err != nil {
		return out, err
	}
	out.Instances = len(watched)
	for i, w := range watched {
		if i%100 == 0 {
			activity.RecordHeartbeat(ctx, out)
		}
		obs := contract.Observation{At: out.At, Observer: in.Observer, Interval: in.Interval}
		if in.MarkStale {
			obs.Stale, obs.Fingerprint = true, observe.FingerprintStale
		} else {
			obs.App = apps[w.Ref.String()] // absent: Deployed false, the app is gone
			out.CaughtUp += a.catchUp(ctx, w.Ref, obs.App)
			obs.App.Deployer, obs.App.Observer = a.Deployer.Name(), in.Observer
			obs.Fingerprint = observe.Fingerprint(obs.App)
		}
		if obs.Fingerprint == w.Fingerprint {
			continue
		}
		if obs.App, err = detail(ctx, lister, obs.App); err != nil {
			return out, classify(err)
		}
		if err := a.Fleet.Tell(ctx, w.Ref, obs); err != nil {
			return out, err
		}
		out.Signalled++
	}
	return out, nil
}

// ObserveApp reads one instance's app now, without changing anything (status --refresh).
func (a *Activities) ObserveApp(ctx context.Context, in contract.ObserveAppInput) (contract.Observation, error) {
	d := in.Ref.Derived()
	st, err := a.Deployer.Status(ctx, deploy.App{Ref: in.Ref, Namespace: d.Namespace, Application: d.Application})
	if err != nil {
		return contract.Observation{}, classify(err)
	}
	st.Observer = a.observer(ctx)
	fp := observe.Fingerprint(st)
	if l, ok := a.Deployer.(deploy.Lister); ok {
		if st, err = detail(ctx, l, st); err != nil {
			return contract.Observation{}, classify(err)
		}
	}
	return contract.Observation{App: st, Fingerprint: fp, At: time.Now().UTC(), Observer: st.Observer}, nil
}

// detail reads what a list leaves out, only for an app that is there and not healthy: the
// fingerprint stays the list's, so a detailed app compares equal to itself next sweep.
func detail(ctx context.Context, l deploy.Lister, app contract.AppStatus) (contract.AppStatus, error) {
	if !app.Deployed || app.Health == observe.ReasonHealthy {
		return app, nil
	}
	return l.Detail(ctx, app)
}

// observer is the ID of the observer watching this worker's deployer, "" when none can.
func (a *Activities) observer(ctx context.Context) string {
	l, ok := a.Deployer.(deploy.Lister)
	if !ok || !activity.IsActivity(ctx) {
		return ""
	}
	return contract.ObserverWorkflowID(activity.GetInfo(ctx).TaskQueue, l.Connection())
}
