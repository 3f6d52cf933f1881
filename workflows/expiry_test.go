package workflows_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/notify"
)

// An instance whose config says expires: 72h (its stack: max 168h, warn [24h, 1h], archive) is
// warned 24 h before its end, extended once by 24 h (which re-arms both warnings; an extension
// past the maximum is refused), warned again, and archived at the new end, with no request.
// Time is skipped: 100 hours pass in the test environment.
func TestAnExpiringInstanceIsWarnedExtendedAndArchived(t *testing.T) {
	w := newWorld(t)
	d := watchDependents(w)
	healthy := argoApp("Healthy")
	w.deployed, w.live = &healthy, healthy
	provision := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML + "expires: 72h\n"})
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deploy.arm = func() { w.signal(healthy, false) }
	protect := protection(contract.UpdateProtect, "keep it")
	tooFar := &request{name: contract.UpdateExtend, arg: contract.ExtendRequest{By: 200 * time.Hour}, at: 60 * time.Hour}
	extend := &request{name: contract.UpdateExtend, arg: contract.ExtendRequest{By: 24 * time.Hour, Reason: "demo on Friday"}}
	mid := refresh()
	after := refresh()
	after.at = 40 * time.Hour
	w.run(contract.Settings{}, provision, deploy, protect, tooFar, extend, mid, after)

	require.NoError(t, provision.err)
	require.NoError(t, deploy.err)
	requireRejected(t, protect.err, "an expiring instance cannot be protected")
	requireRejected(t, tooFar.err, "over the stack's maximum of 168h0m0s from now (schema.expiry.max)")
	require.NoError(t, extend.err)
	require.NotNil(t, mid.status.Expiry)
	require.Equal(t, 96*time.Hour, mid.status.Expiry.At.Sub(mid.status.Expiry.SetAt.Add(-60*time.Hour)).Round(time.Hour), "the end moved by 24 h")

	var expiring []string
	for _, ev := range d.events {
		if ev.Kind == notify.KindExpiring {
			expiring = append(expiring, ev.Message)
		}
	}
	require.Len(t, expiring, 3, "24 h before the first end, then 24 h and 1 h before the new one: %q", expiring)
	require.Contains(t, expiring[0], "acme/web expires at ")
	require.Contains(t, expiring[0], "slipway extend acme/web --by DURATION")
	require.Equal(t, lifecycle.Archived, after.status.State, "archived at the end, with no request")
	require.Nil(t, after.status.Expiry)
	require.Equal(t, lifecycle.OpArchive, after.status.Operation.Kind)
}

// A rollout's deploy carries the instance file's expiry: the end and who set it stay, since a
// rollout changes parameters. Before, its deploy set the end again, 72 h from the rollout.
func TestARolloutDeployKeepsTheInstancesEnd(t *testing.T) {
	w := newWorld(t)
	watchDependents(w) // the rollout is told when its deploy ends
	healthy := argoApp("Healthy")
	w.deployed, w.live = &healthy, healthy
	provision := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML + "expires: 72h\n"})
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	deploy.arm = func() { w.signal(healthy, false) }
	before := refresh()
	rollout := op(lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: webYAML + "expires: 72h\n", Rollout: "rollout/r1"})
	rollout.at = 10 * time.Hour
	rollout.arm = func() { w.signal(healthy, false) }
	after := refresh()
	w.run(contract.Settings{}, provision, deploy, before, rollout, after)

	require.NoError(t, rollout.err)
	require.NotNil(t, before.status.Expiry)
	require.NotNil(t, after.status.Expiry)
	require.Equal(t, before.status.Expiry.At, after.status.Expiry.At, "the end the provision set")
	require.Equal(t, before.status.Expiry.SetAt, after.status.Expiry.SetAt)
}
