// Package instant holds instant adapters: stand-ins for external systems that answer at once
// from memory, so a benchmark measures slipway's orchestration and nothing else. They are not
// fakes of any documented API and never run in the product.
package instant

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
)

// Deployer is an instant deployer that can list: every app it holds is reported as set.
type Deployer struct {
	mu    sync.Mutex
	apps  map[string]contract.AppStatus
	lists atomic.Int64
}

var (
	_ deploy.Deployer = (*Deployer)(nil)
	_ deploy.Lister   = (*Deployer)(nil)
)

// NewDeployer returns an instant deployer holding no apps.
func NewDeployer() *Deployer { return &Deployer{apps: map[string]contract.AppStatus{}} }

// Healthy is the app an instant deploy reports: Synced and Healthy, one ConfigMap present.
func Healthy(ref contract.Ref) contract.AppStatus {
	return contract.AppStatus{Deployer: "instant", Deployed: true, Sync: "Synced", Health: "Healthy",
		Resources: []contract.Resource{{App: ref.Name, Cluster: "instant", Version: "v1", Kind: "ConfigMap",
			Namespace: ref.Tenant + "-" + ref.Name, Name: "app", RsyncStatus: "Applied", ClusterStatus: "Present"}}}
}

// Set makes the deployer report app for ref from now on.
func (d *Deployer) Set(ref contract.Ref, app contract.AppStatus) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.apps[ref.String()] = app
}

// Lists is how many times List was called.
func (d *Deployer) Lists() int64 { return d.lists.Load() }

func (d *Deployer) Name() string       { return "instant" }
func (d *Deployer) Connection() string { return "instant-0000000000" }

func (d *Deployer) Deploy(_ context.Context, app deploy.App, _ time.Time) (contract.AppStatus, error) {
	st := Healthy(app.Ref)
	d.Set(app.Ref, st)
	return st, nil
}

func (d *Deployer) Status(_ context.Context, app deploy.App) (contract.AppStatus, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, ok := d.apps[app.Ref.String()]
	if !ok {
		return contract.AppStatus{Deployer: d.Name()}, nil
	}
	return st, nil
}

func (d *Deployer) Remove(_ context.Context, app deploy.App) (contract.AppStatus, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.apps, app.Ref.String())
	return contract.AppStatus{Deployer: d.Name()}, nil
}

func (d *Deployer) Detail(_ context.Context, app contract.AppStatus) (contract.AppStatus, error) {
	return app, nil
}

func (d *Deployer) List(context.Context) (map[string]contract.AppStatus, error) {
	d.lists.Add(1)
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string]contract.AppStatus, len(d.apps))
	for k, v := range d.apps {
		out[k] = v
	}
	return out, nil
}
