package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func protection(update, reason string) *request {
	return &request{name: update, arg: contract.ProtectRequest{Actor: "carol", Reason: reason}}
}

// A config that says protected: true protects the instance: destroy and deprovision are refused
// by the validator, whoever sends them, until unprotect (with a reason); a deploy of a config that
// drops the field does not unprotect it; protect sets it again.
func TestProtectedInstanceRefusesTeardownUntilUnprotected(t *testing.T) {
	w := newWorld(t)
	provision := op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML + "protected: true\n"})
	dropped := op(lifecycle.OpDeploy, contract.OperationRequest{ConfigYAML: webYAML})
	destroy := op(lifecycle.OpDestroy, contract.OperationRequest{})
	deprovision := op(lifecycle.OpDeprovision, contract.OperationRequest{Confirm: true})
	noReason := protection(contract.UpdateUnprotect, " ")
	before := refresh()
	unprotect := protection(contract.UpdateUnprotect, "decommissioning")
	again := protection(contract.UpdateUnprotect, "twice")
	protect := protection(contract.UpdateProtect, "hold it")
	after := refresh()
	refusedAgain := op(lifecycle.OpDestroy, contract.OperationRequest{})
	unprotect2 := protection(contract.UpdateUnprotect, "now")
	destroyed := op(lifecycle.OpDestroy, contract.OperationRequest{})
	w.run(contract.Settings{}, provision, dropped, destroy, deprovision, noReason, before, unprotect, again, protect, after,
		refusedAgain, unprotect2, destroyed)

	require.NoError(t, provision.err)
	require.NoError(t, dropped.err)
	requireRejected(t, destroy.err, "acme/web: destroy refused: the instance is protected from deletion")
	requireRejected(t, destroy.err, "protected: true in the instance file")
	requireRejected(t, destroy.err, "slipway unprotect acme/web --reason TEXT")
	requireRejected(t, deprovision.err, "acme/web: deprovision refused: the instance is protected from deletion")
	requireRejected(t, noReason.err, "unprotect needs a reason")
	require.NotNil(t, before.status.Protection, "dropping protected: from the file does not unprotect")
	require.Equal(t, "file", before.status.Protection.Source)
	require.NoError(t, unprotect.err)
	requireRejected(t, again.err, "acme/web is not protected")
	require.NoError(t, protect.err)
	require.Equal(t, "cli", after.status.Protection.Source)
	require.Equal(t, "hold it", after.status.Protection.Reason)
	requireRejected(t, refusedAgain.err, "destroy refused: the instance is protected")
	require.NoError(t, unprotect2.err)
	require.NoError(t, destroyed.err)
	require.Equal(t, lifecycle.Destroyed, destroyed.result.State)
}
