package workflows

import (
	"errors"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

// BatchResult says which deliveries of a batch were filed, and which were redeliveries.
type BatchResult struct {
	Filed      []string `json:"filed"`
	Duplicates []string `json:"duplicates,omitempty"`
	Failed     []string `json:"failed,omitempty"` // could not be filed: "ID: error", kept so none is lost unseen
}

// DeliveryBatchWorkflow files each delivery of a batch as its own DeliveryWorkflow, whose ID
// is the provider and delivery ID: a redelivery finds the earlier record and runs nothing.
// The records outlive the batch, which ends once each has started.
func DeliveryBatchWorkflow(ctx workflow.Context, ds []contract.Delivery) (BatchResult, error) {
	var res BatchResult
	futures := make([]workflow.ChildWorkflowFuture, len(ds))
	for i, d := range ds {
		cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID:            contract.DeliveryWorkflowID(d.Provider, d.ID),
			ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
		})
		futures[i] = workflow.ExecuteChildWorkflow(cctx, contract.DeliveryWorkflowName, d)
	}
	for i, f := range futures {
		id := contract.DeliveryWorkflowID(ds[i].Provider, ds[i].ID)
		err := f.GetChildWorkflowExecution().Get(ctx, nil)
		switch {
		case alreadyStarted(err):
			res.Duplicates = append(res.Duplicates, id)
		case err != nil:
			res.Failed = append(res.Failed, id+": "+errorMessage(err))
		default:
			res.Filed = append(res.Filed, id)
		}
	}
	return res, nil
}

// alreadyStarted: the server reports a child ID in use as ChildWorkflowExecutionAlreadyStartedError,
// the SDK's test environment as the service error.
func alreadyStarted(err error) bool {
	var child *temporal.ChildWorkflowExecutionAlreadyStartedError
	var svc *serviceerror.WorkflowExecutionAlreadyStarted
	return errors.As(err, &child) || errors.As(err, &svc)
}
