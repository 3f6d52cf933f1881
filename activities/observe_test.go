package activities

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/observe"
)

// listingDeployer is a deploy.Lister whose apps a test sets; it counts list calls.
type listingDeployer struct {
	deploy.None
	apps     map[string]contract.AppStatus
	err      error
	lists    int
	detailed []string
}

func (d *listingDeployer) Detail(_ context.Context, app contract.AppStatus) (contract.AppStatus, error) {
	d.detailed = append(d.detailed, app.Application)
	app.Message = "detailed"
	return app, nil
}

func (d *listingDeployer) Name() string       { return "argocd" }
func (d *listingDeployer) Connection() string { return "argocd-0123456789" }
func (d *listingDeployer) List(context.Context) (map[string]contract.AppStatus, error) {
	d.lists++
	return d.apps, d.err
}

// recordingFleet is a Fleet with fixed watched instances that records what it is told.
type recordingFleet struct {
	watched []WatchedInstance
	told    map[string]contract.Observation
}

func (f *recordingFleet) Watched(context.Context, string) ([]WatchedInstance, error) {
	return f.watched, nil
}
func (f *recordingFleet) Tell(_ context.Context, ref contract.Ref, obs contract.Observation) error {
	f.told[ref.String()] = obs
	return nil
}

func (f *recordingFleet) toldRefs() []string {
	var out []string
	for r := range f.told {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

func app(health string) contract.AppStatus {
	return contract.AppStatus{Deployer: "argocd", Deployed: true, Sync: "Synced", Health: health,
		Observer: "observer/slipway/argocd-0123456789", Application: "acme-" + health}
}

func runSweep(t *testing.T, a *Activities, in contract.ObserveAppsInput) contract.ObserveAppsOutput {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	v, err := env.ExecuteActivity(contract.ActObserveApps, in)
	require.NoError(t, err)
	var out contract.ObserveAppsOutput
	require.NoError(t, v.Get(&out))
	return out
}

func TestSweepTellsOnlyTheInstancesThatChanged(t *testing.T) {
	dep := &listingDeployer{apps: map[string]contract.AppStatus{
		"acme/quiet":    app("Healthy"),
		"acme/degraded": app("Degraded"),
		"acme/new":      app("Healthy"),
	}}
	fleet := &recordingFleet{told: map[string]contract.Observation{}, watched: []WatchedInstance{
		{Ref: contract.Ref{Tenant: "acme", Name: "quiet"}, Fingerprint: observe.Fingerprint(app("Healthy"))},
		{Ref: contract.Ref{Tenant: "acme", Name: "degraded"}, Fingerprint: observe.Fingerprint(app("Healthy"))},
		{Ref: contract.Ref{Tenant: "acme", Name: "new"}}, // recorded nothing yet
		{Ref: contract.Ref{Tenant: "acme", Name: "deleted"}, Fingerprint: observe.Fingerprint(app("Healthy"))},
		{Ref: contract.Ref{Tenant: "acme", Name: "already-gone"}, Fingerprint: "missing"},
	}}
	a := &Activities{Deployer: dep, Fleet: fleet}
	out := runSweep(t, a, contract.ObserveAppsInput{Observer: "observer/slipway/argocd-0123456789", Interval: 30 * time.Second})

	require.Equal(t, 1, dep.lists, "one list call for the whole fleet")
	require.Equal(t, contract.ObserveAppsOutput{At: out.At, Apps: 3, Instances: 5, Signalled: 3}, out)
	require.Equal(t, []string{"acme/degraded", "acme/deleted", "acme/new"}, fleet.toldRefs())
	gone := fleet.told["acme/deleted"]
	require.False(t, gone.App.Deployed, "an instance whose Application is gone is told so")
	require.Equal(t, "missing", gone.Fingerprint)
	require.Equal(t, "argocd", gone.App.Deployer)
	require.Equal(t, 30*time.Second, gone.Interval)
	require.Equal(t, observe.Fingerprint(app("Degraded")), fleet.told["acme/degraded"].Fingerprint,
		"the list's fingerprint, so the detailed app compares equal next sweep")
	require.Equal(t, []string{"acme-Degraded"}, dep.detailed, "only a changed app that is not healthy costs a detail call")
	require.Equal(t, "detailed", fleet.told["acme/degraded"].App.Message)

	// The same sweep again, once the instances recorded what they were told: nothing to tell.
	for i, w := range fleet.watched {
		if obs, ok := fleet.told[w.Ref.String()]; ok {
			fleet.watched[i].Fingerprint = obs.Fingerprint
		}
	}
	fleet.told = map[string]contract.Observation{}
	out = runSweep(t, a, contract.ObserveAppsInput{Observer: "observer/slipway/argocd-0123456789"})
	require.Zero(t, out.Signalled)
	require.Empty(t, fleet.told)
}

func TestSweepMarksStaleWithoutAskingTheDeployer(t *testing.T) {
	dep := &listingDeployer{err: errors.New("connection refused")}
	fleet := &recordingFleet{told: map[string]contract.Observation{}, watched: []WatchedInstance{
		{Ref: contract.Ref{Tenant: "acme", Name: "a"}, Fingerprint: observe.Fingerprint(app("Healthy"))},
		{Ref: contract.Ref{Tenant: "acme", Name: "b"}, Fingerprint: observe.FingerprintStale},
	}}
	a := &Activities{Deployer: dep, Fleet: fleet}
	out := runSweep(t, a, contract.ObserveAppsInput{Observer: "o", MarkStale: true})
	require.Zero(t, dep.lists)
	require.Equal(t, 1, out.Signalled, "b was already told")
	require.True(t, fleet.told["acme/a"].Stale)

	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(a)
	_, err := env.ExecuteActivity(contract.ActObserveApps, contract.ObserveAppsInput{Observer: "o"})
	require.ErrorContains(t, err, "connection refused", "a sweep that cannot list fails, and the observer counts it")
}

func TestSweepNeedsADeployerThatLists(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.RegisterActivity(&Activities{Deployer: deploy.None{}, Fleet: &recordingFleet{}})
	_, err := env.ExecuteActivity(contract.ActObserveApps, contract.ObserveAppsInput{Observer: "o"})
	require.ErrorContains(t, err, "deployer none cannot list its apps")
}
