package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Attack 4 of the trust issue, on the real stack with the real identity provider: alice (tenant
// acme) sends `slipway server` a drift check naming tenant acme but carrying bob's other/db in
// scope.resume.left, with remediate: deploy, while other/db has drifted. The sweep would check
// and redeploy bob's instance; instead the request is refused as bad input naming the field
// (exit 2), as is the same scope in a schedule and a concurrency past the maximum, and bob's
// instance is untouched: no operation, the same terraform state, still drifted.
func TestADriftCheckCannotReachAnotherTenantsInstance(t *testing.T) {
	w := newPeople(t)
	e := w.e
	inst := writeFile(t, "stack: example\nparameters:\n  greeting: bonjour\n  replicas: 1\n")
	w.as(w.bob, 0, "create", "other/db", "-f", inst, "--wait")
	w.as(w.bob, 0, "deploy", "other/db", "--wait")
	state := tamperState(t, e, "other", "db")
	serial := stateSerial(t, state)
	before := e.Status("other/db")

	api, err := apiserver.NewClient(w.url, func(context.Context) (string, error) { return w.alice, nil })
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	left := &contract.DriftResume{Left: []contract.ListedInstance{{Ref: contract.Ref{Tenant: "other", Name: "db"}, State: string(lifecycle.Deployed)}}}
	_, err = api.SweepDrift(ctx, contract.DriftScope{Tenant: "acme", Remediate: contract.RemediateDeploy, Resume: left})
	require.Error(t, err, "the sweep must not run")
	require.Equal(t, errkind.Invalid, apiserver.KindOf(err), "bad input, exit 2: %v", err)
	require.Contains(t, err.Error(), "resume: ")

	err = api.ScheduleDrift(ctx, "attack-drift-scope", 6*time.Hour, contract.DriftScope{Tenant: "acme", Remediate: contract.RemediateDeploy, Resume: left})
	require.Equal(t, errkind.Invalid, apiserver.KindOf(err), "%v", err)
	require.Contains(t, err.Error(), "scope.resume: ")
	_, err = e.Client.Temporal.ScheduleClient().GetHandle(ctx, "drift/attack-drift-scope").Describe(ctx)
	var nf *serviceerror.NotFound
	require.ErrorAs(t, err, &nf, "no schedule was made")

	_, err = api.SweepDrift(ctx, contract.DriftScope{Tenant: "acme", Concurrency: 100000})
	require.Equal(t, errkind.Invalid, apiserver.KindOf(err), "%v", err)
	require.Contains(t, err.Error(), "concurrency: 100000: must be 1 to 64")

	// alice's sweep of another tenant is the policy's to refuse (exit 3).
	_, err = api.SweepDrift(ctx, contract.DriftScope{Tenant: "other", Remediate: contract.RemediateDeploy})
	require.True(t, client.IsRefused(err), "%v", err)

	after := e.Status("other/db")
	require.Equal(t, lifecycle.Deployed, after.State)
	require.Equal(t, before.Operation.ID, after.Operation.ID, "no deploy ran on bob's instance")
	require.Equal(t, serial, stateSerial(t, state), "nothing was applied to bob's instance")
	require.Equal(t, before.Drift, after.Drift, "no drift check ran on bob's instance")
}
