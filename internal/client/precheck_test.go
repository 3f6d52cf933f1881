package client

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// The precheck refuses on a status what the workflow's validator would (lifecycle.Admit), as a
// RejectedError the CLI exits 2 on, and leaves a teardown of a running deploy to the workflow.
func TestPrecheckAdmitsOnTheStatusWithTheWorkflowsCheck(t *testing.T) {
	ref := contract.Ref{Tenant: "acme", Name: "web"}
	since := time.Date(2026, 11, 25, 1, 0, 0, 0, time.UTC)
	gated := &contract.Status{State: lifecycle.Deployed, Gates: []contract.Gate{{Spec: gates.Spec{Name: "network"}}},
		Waiting: &contract.GateWait{Operation: lifecycle.OpDeploy, Since: since}}
	err := admit(ref, gated, lifecycle.OpDeploy, contract.OperationRequest{})
	var rj *RejectedError
	require.True(t, errors.As(err, &rj), "%v", err)
	require.True(t, rj.Busy)
	require.Equal(t, "rejected: acme/web is busy: deploy waiting at scheduling gates (network) since 2026-11-25T01:00:00Z; "+
		"deploy is rejected, not queued — remove the gates, or slipway cancel acme/web", err.Error())
	require.True(t, IsBadRequest(err))

	deploying := &contract.Status{State: lifecycle.Deploying}
	require.NoError(t, admit(ref, deploying, lifecycle.OpDestroy, contract.OperationRequest{}), "PreTerminate: the workflow decides")
	err = admit(ref, deploying, lifecycle.OpDeploy, contract.OperationRequest{})
	require.True(t, errors.As(err, &rj), "%v", err)
	require.False(t, rj.Busy)
	require.Contains(t, err.Error(), "acme/web: deploy is not allowed in state Deploying")

	created := &contract.Status{State: lifecycle.ConfigurationCreated}
	err = admit(ref, created, lifecycle.OpDeploy, contract.OperationRequest{Recreate: true})
	require.EqualError(t, err, "rejected: acme/web: recreate replaces a Deployed instance's workload, as it is; the instance is ConfigurationCreated")
}
