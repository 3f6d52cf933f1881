package client

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
)

// StartPreview starts the fleet preview stack-preview/<spec.ID>; an ID in use is refused.
func (c *Client) StartPreview(ctx context.Context, spec contract.PreviewSpec) error {
	sa := []temporal.SearchAttributeUpdate{contract.SAInstanceStack.ValueSet(spec.Stack)}
	if spec.Tenant != "" {
		sa = append(sa, contract.SATenant.ValueSet(spec.Tenant))
	}
	_, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.PreviewWorkflowID(spec.ID), TaskQueue: c.TaskQueue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		// Without it the SDK hands back the ID's last run, ended or not, as if this one started.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            fmt.Sprintf("preview of stack %s moved to release %s", spec.Stack, spec.To),
		// The tenant is what a server decides a read of the preview on, before it reads anything of it.
		TypedSearchAttributes: temporal.NewSearchAttributes(sa...),
	}, contract.StackPreviewWorkflowName, spec)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return &RejectedError{Message: fmt.Sprintf("--id %s: a preview with that ID exists already; choose another", spec.ID)}
	}
	return err
}

// Preview waits for a preview's result, or with wait false asks a running one how far it got.
func (c *Client) Preview(ctx context.Context, id string, wait bool) (contract.PreviewResult, error) {
	var res contract.PreviewResult
	if wait {
		err := c.Temporal.GetWorkflow(ctx, contract.PreviewWorkflowID(id), "").Get(ctx, &res)
		return res, translatePreview(id, err)
	}
	v, err := c.Temporal.QueryWorkflow(ctx, contract.PreviewWorkflowID(id), "", contract.QueryPreview)
	if err != nil {
		return res, translatePreview(id, err)
	}
	return res, v.Get(&res)
}

func translatePreview(id string, err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return &RejectedError{Message: fmt.Sprintf("no preview %s", id)}
	}
	return translate("preview "+id, err)
}
