package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The transitions of docs/design.md, written out independently of the table in operations.go.
func TestTransitionsMatchDesign(t *testing.T) {
	type edge struct{ from, running, done, failed State }
	want := map[Operation][]edge{
		OpProvision: {{NoConfiguration, Provisioning, ConfigurationCreated, ProvisioningFailed}},
		OpDeploy: {
			{ConfigurationCreated, Deploying, Deployed, DeploymentFailed},
			{Deployed, Deploying, Deployed, DeploymentFailed},
			{Archived, Deploying, Deployed, DeploymentFailed},
			{Destroyed, Deploying, Deployed, DeploymentFailed},
		},
		OpArchive: {{Deployed, Archiving, Archived, ArchiveFailed}},
		OpDestroy: {
			{Deployed, Destroying, Destroyed, DestroyFailed},
			{DeploymentFailed, Destroying, Destroyed, DestroyFailed},
			{ProvisioningFailed, Destroying, Destroyed, DestroyFailed},
		},
		OpDeprovision: {
			{Archived, Deprovisioning, Deprovisioned, DeprovisioningFailed},
			{Destroyed, Deprovisioning, Deprovisioned, DeprovisioningFailed},
			{ConfigurationCreated, Deprovisioning, Deprovisioned, DeprovisioningFailed},
			{Deployed, Deprovisioning, Deprovisioned, DeprovisioningFailed},
			{DeploymentFailed, Deprovisioning, Deprovisioned, DeprovisioningFailed},
			{ProvisioningFailed, Deprovisioning, Deprovisioned, DeprovisioningFailed},
		},
		OpPlan: {
			{ConfigurationCreated, ConfigurationCreated, ConfigurationCreated, ConfigurationCreated},
			{Deployed, Deployed, Deployed, Deployed},
			{Archived, Archived, Archived, Archived},
			{Destroyed, Destroyed, Destroyed, Destroyed},
		},
	}
	for op, edges := range want {
		allowedFrom := map[State]bool{}
		for _, e := range edges {
			allowedFrom[e.from] = true
			require.NoError(t, Check(e.from, op), "%s from %s", op, e.from)
			require.Equal(t, e.running, op.Running(e.from), "%s from %s", op, e.from)
			require.Equal(t, e.done, op.Done(e.from), "%s from %s", op, e.from)
			require.Equal(t, e.failed, op.Failed(e.from), "%s from %s", op, e.from)
		}
		for _, s := range AllStates {
			if !allowedFrom[s] {
				var na *NotAllowedError
				require.ErrorAs(t, Check(s, op), &na, "%s must be refused in %s", op, s)
			}
		}
	}
}

func TestNotAllowedNamesStateAndAllowedOperations(t *testing.T) {
	err := Check(ConfigurationCreated, OpArchive)
	require.EqualError(t, err, "archive is not allowed in state ConfigurationCreated (allowed: deploy, plan, deprovision)")
	require.Contains(t, Check(DeploymentFailed, OpDeploy).Error(), "decide first with retry, resolve or abandon")
	require.Contains(t, Check(Deploying, OpArchive).Error(), "wait for the running operation to finish, or stop it with cancel")
	require.NotContains(t, Check(Archiving, OpDeploy).Error(), "cancel", "only provision and deploy can be cancelled")
	require.EqualError(t, Check(DeploymentFailed, OpArchive),
		"archive is not allowed in state DeploymentFailed (allowed: destroy, deprovision); decide first with retry, resolve or abandon")
	require.NoError(t, Check(DeploymentFailed, OpDestroy))
	require.Contains(t, Check(Deprovisioned, OpProvision).Error(), "allowed: none")
}

func TestStateKinds(t *testing.T) {
	for _, s := range AllStates {
		parsed, ok := ParseState(string(s))
		require.True(t, ok)
		require.Equal(t, s, parsed)
		_, isOp := OperationFor(s)
		require.Equal(t, (s.Failed() || s.Busy()) && s != PreTerminate, isOp, "%s", s)
	}
	require.True(t, Deprovisioned.Final())
	_, ok := ParseState("deployed")
	require.False(t, ok, "state names are exact")
	op, ok := ParseOperation("create")
	require.True(t, ok)
	require.Equal(t, OpProvision, op)
}

func TestReadyNeedsProgrammedAndRunning(t *testing.T) {
	c := func(s ConditionStatus) Condition { return Condition{Status: s} }
	require.Equal(t, ConditionTrue, ReadyFrom(c(ConditionTrue), c(ConditionTrue)).Status)
	require.Equal(t, ConditionUnknown, ReadyFrom(c(ConditionTrue), c(ConditionUnknown)).Status)
	require.Equal(t, ConditionFalse, ReadyFrom(c(ConditionFalse), c(ConditionTrue)).Status)
	require.Equal(t, ConditionFalse, ReadyFrom(c(ConditionTrue), c(ConditionFalse)).Status)
}

// PreTerminate is EMCO's: busy (nothing else starts), not failed, and only the instantiating
// operations are stopped by cancel or a teardown.
func TestPreTerminateAndCancellable(t *testing.T) {
	require.True(t, PreTerminate.Busy())
	require.False(t, PreTerminate.Failed())
	var cancellable []State
	for _, s := range AllStates {
		if s.Cancellable() {
			cancellable = append(cancellable, s)
		}
	}
	require.Equal(t, []State{Provisioning, Deploying}, cancellable)
	var terminates []Operation
	for _, op := range AllOperations {
		if op.Terminates() {
			terminates = append(terminates, op)
		}
	}
	require.Equal(t, []Operation{OpArchive, OpDestroy, OpDeprovision}, terminates)
	for _, op := range AllOperations {
		require.Error(t, Check(PreTerminate, op), "nothing starts while the teardown waits for the stop")
	}
}
