package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// A deploy of a stack that draws on a full budget waits before terraform apply, says so in its
// step's detail, and applies once the semaphore grants it a slot.
func TestApplyWaitsForACapacitySlot(t *testing.T) {
	w := newWorld(t)
	w.capacity = &contract.Capacity{Apply: "aws-prod"}
	var (
		mu      sync.Mutex
		asked   []contract.CapacityRequest
		waiting string // the apply step's detail while it waited
		applied int    // TerraformApply calls when the grant came
	)
	w.env.OnActivity(contract.ActCapacityAcquire, mock.Anything, mock.Anything).Return(
		func(_ context.Context, req contract.CapacityRequest) (contract.CapacityPlace, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req)
			return contract.CapacityPlace{InUse: 2, Slots: 2, Ahead: 1}, nil
		})
	released := 0
	w.env.OnSignalExternalWorkflow(mock.Anything, contract.CapacityWorkflowID("aws-prod"), "", contract.SignalCapacityRelease, mock.Anything).Return(
		func(_, _, _, _ string, _ any) error {
			mu.Lock()
			defer mu.Unlock()
			released++
			return nil
		})
	var grant func()
	grant = func() {
		mu.Lock()
		n := len(asked)
		mu.Unlock()
		if n == 0 {
			w.env.RegisterDelayedCallback(grant, time.Second)
			return
		}
		for _, s := range w.status("").Operation.Steps {
			if s.Name == contract.TFApply && s.Status == contract.StepRunning {
				waiting = s.Detail
			}
		}
		applied = w.called(contract.ActTerraformApply)
		mu.Lock()
		id := asked[0].Holder.WorkflowID
		mu.Unlock()
		w.env.SignalWorkflowByID(id, contract.SignalCapacityGranted, "aws-prod")
	}
	w.env.RegisterDelayedCallback(grant, time.Second)
	deploy := op(lifecycle.OpDeploy, contract.OperationRequest{})
	w.run(contract.Settings{}, op(lifecycle.OpProvision, contract.OperationRequest{ConfigYAML: webYAML}), deploy)

	require.NoError(t, deploy.err)
	require.Equal(t, contract.ResultSucceeded, deploy.result.Result)
	require.Len(t, asked, 1)
	require.Equal(t, "aws-prod", asked[0].Budget)
	require.Equal(t, 0, applied, "terraform apply waited for the slot")
	require.Equal(t, 1, w.called(contract.ActTerraformApply))
	require.Equal(t, 1, released, "the slot was given back")
	require.Equal(t, "waiting for budget aws-prod (2/2 in use, 1 ahead)", waiting)
}
