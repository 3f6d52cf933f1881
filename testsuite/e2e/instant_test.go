package e2e

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// The bench measures orchestration over instant adapters; this shows every pipeline runs on them
// on the real dev server and ends where the real adapters end, so the bench times real lifecycles.
func TestInstantAdaptersRunTheWholeLifecycle(t *testing.T) {
	e, acts := instantEnv(t, nil)

	ref := contract.Ref{Tenant: "instant", Name: "web"}
	cfg := func(replicas string) string {
		return "stack: example\nparameters:\n  greeting: hello\n  replicas: " + replicas + "\n"
	}
	for _, s := range []struct {
		op     lifecycle.Operation
		config string
		want   lifecycle.State
		check  func(contract.OperationResult)
	}{
		{lifecycle.OpProvision, cfg("1"), lifecycle.ConfigurationCreated, nil},
		{lifecycle.OpDeploy, "", lifecycle.Deployed, nil},
		{lifecycle.OpPlan, "", lifecycle.Deployed, func(r contract.OperationResult) {
			require.NotNil(t, r.Plan)
			assert.True(t, r.Plan.NoChanges, "nothing changed since the deploy")
		}},
		{lifecycle.OpPlan, cfg("2"), lifecycle.Deployed, func(r contract.OperationResult) {
			require.NotNil(t, r.Plan)
			assert.Positive(t, r.Plan.Change, "a changed config plans a change")
		}},
		{lifecycle.OpDeploy, cfg("2"), lifecycle.Deployed, nil},
		{lifecycle.OpArchive, "", lifecycle.Archived, nil},
		{lifecycle.OpDeploy, "", lifecycle.Deployed, nil},
		{lifecycle.OpDestroy, "", lifecycle.Destroyed, nil},
		{lifecycle.OpDeprovision, "", lifecycle.Deprovisioned, nil},
	} {
		h, err := e.Client.Submit(context.Background(), ref, s.op, contract.OperationRequest{ConfigYAML: s.config,
			Confirm: s.op == lifecycle.OpDeprovision}, "")
		require.NoError(t, err, s.op)
		res, err := h.Get(context.Background())
		require.NoError(t, err, s.op)
		require.Equal(t, contract.ResultSucceeded, res.Result, "%s: %+v", s.op, res.Failure)
		assert.Equal(t, s.want, res.State, s.op)
		if s.check != nil {
			s.check(res)
		}
	}
	gone, err := acts.Deployer.Status(context.Background(), deploy.App{Ref: ref})
	require.NoError(t, err)
	assert.False(t, gone.Deployed, "deprovision removed the app")
}
