package workerapp

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/slipway-dev/slipway/activities"
)

// A worker without a name registry would provision without claiming names: it must not start.
func TestRegisterRefusesActivitiesWithoutANameRegistry(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	err := Register(env, &activities.Activities{})
	var me *MissingError
	require.ErrorAs(t, err, &me)
	require.Equal(t, "Activities.Names", me.Field)
}
