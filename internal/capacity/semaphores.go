package capacity

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
)

// Semaphores asks the budgets' semaphore workflows for slots through the worker's own client.
type Semaphores struct {
	c         client.Client
	taskQueue string
}

// NewSemaphores runs the semaphores on taskQueue.
func NewSemaphores(c client.Client, taskQueue string) *Semaphores {
	return &Semaphores{c: c, taskQueue: taskQueue}
}

// Acquire queues req.Holder at the budget's semaphore, starting it if none runs, and returns its
// place. Asking again for a holder already queued or holding changes nothing.
func (s *Semaphores) Acquire(ctx context.Context, req contract.CapacityRequest) (contract.CapacityPlace, error) {
	id := contract.CapacityWorkflowID(req.Budget)
	state := contract.CapacityState{Budget: req.Budget, Slots: req.Slots}
	start := s.c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: id, TaskQueue: s.taskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		StaticSummary:            "capacity budget " + req.Budget,
	}, contract.CapacityWorkflowName, state)
	ctx = attest.WithStart(ctx, id, contract.CapacityWorkflowName, state)
	h, err := s.c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			WorkflowID: id, UpdateName: contract.UpdateCapacityAcquire, Args: []any{req},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	var place contract.CapacityPlace
	if err == nil {
		err = h.Get(ctx, &place)
	}
	if err != nil {
		return place, fmt.Errorf("acquire a slot of budget %s: %w", req.Budget, err)
	}
	return place, nil
}

// Closed returns the workflow IDs among holders whose runs are no longer running.
func (s *Semaphores) Closed(ctx context.Context, holders []contract.CapacityHolder) ([]string, error) {
	var closed []string
	for _, h := range holders {
		d, err := s.c.DescribeWorkflowExecution(ctx, h.WorkflowID, h.RunID)
		var nf *serviceerror.NotFound
		switch {
		case errors.As(err, &nf):
			closed = append(closed, h.WorkflowID)
		case err != nil:
			return nil, err
		case d.WorkflowExecutionInfo.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
			closed = append(closed, h.WorkflowID)
		}
	}
	return closed, nil
}
