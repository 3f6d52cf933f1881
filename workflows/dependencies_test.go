package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func TestScheduledNamesAFailedDependency(t *testing.T) {
	e := &entity{s: &contract.InstanceState{Gates: []contract.Gate{{Spec: gates.Spec{Name: "instance:acme/net"}}}}}
	require.Equal(t, "SchedulingGated", e.scheduledCondition().Reason)
	e.s.Gates[0].Failed = "acme/net is DeploymentFailed: deploy failed at step terraform-plan: boom"
	c := e.scheduledCondition()
	require.Equal(t, lifecycle.ConditionFalse, c.Status)
	require.Equal(t, contract.ReasonDependencyFailed, c.Reason)
	require.Contains(t, c.Message, "instance:acme/net: acme/net is DeploymentFailed")
}
