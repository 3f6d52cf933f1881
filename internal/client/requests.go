package client

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Handle is an accepted request; Get waits for its result.
type Handle struct {
	Ref       contract.Ref
	RequestID string
	update    client.WorkflowUpdateHandle
}

// Get waits for the operation (or decision) to end.
func (h *Handle) Get(ctx context.Context) (contract.OperationResult, error) {
	var res contract.OperationResult
	err := h.update.Get(ctx, &res)
	return res, translate(h.Ref.String(), err)
}

// Request is the handle of a request sent earlier (by requestID), e.g. through `slipway server`:
// Get waits for it like the sender's own handle.
func (c *Client) Request(ref contract.Ref, requestID string) *Handle {
	h := c.Temporal.GetWorkflowUpdateHandle(client.GetWorkflowUpdateHandleOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateID: requestID,
	})
	return &Handle{Ref: ref, RequestID: requestID, update: h}
}

// Validate checks a config against its stack on a worker, changing nothing.
func (c *Client) Validate(ctx context.Context, in contract.ValidateInput) (contract.ValidateOutput, error) {
	var out contract.ValidateOutput
	run, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        "validate/" + in.Ref.String() + "/" + uuid.NewString(),
		TaskQueue: c.TaskQueue,
	}, contract.ValidateWorkflowName, in)
	if err != nil {
		return out, err
	}
	return out, translate(in.Ref.String(), run.Get(ctx, &out))
}

// Submit sends an operation to the instance and returns once it is accepted.
// Provision starts the instance's entity workflow if it is not running.
// requestID makes the request idempotent: the same ID is never run twice.
func (c *Client) Submit(ctx context.Context, ref contract.Ref, op lifecycle.Operation, req contract.OperationRequest, requestID string) (*Handle, error) {
	if requestID == "" {
		requestID = uuid.NewString()
	}
	if err := c.checkUnused(ctx, ref, op); err != nil {
		return nil, err
	}
	upd := client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: string(op), UpdateID: requestID,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageAccepted,
	}
	if op != lifecycle.OpProvision {
		h, err := c.Temporal.UpdateWorkflow(ctx, upd)
		return accepted(ref, requestID, h, err)
	}
	start := c.Temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: contract.InstanceWorkflowID(ref), TaskQueue: c.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            contract.InstanceSummary(ref),
		// An instance's own tasks are short and every operation, a person's too, waits on them.
		Priority: contract.TaskPriority(contract.PriorityPerson, ref.Tenant),
		// Every attribute a fresh run has, so its first upsert finds nothing changed and records no event.
		TypedSearchAttributes: temporal.NewSearchAttributes(
			contract.SAInstanceState.ValueSet(string(lifecycle.NoConfiguration)),
			contract.SATenant.ValueSet(ref.Tenant), contract.SAInstanceName.ValueSet(ref.Name),
			contract.SAInstanceReady.ValueSet(string(lifecycle.ConditionUnknown))),
	}, contract.InstanceWorkflowName, contract.InstanceInput{Ref: ref})
	// The SDK hides the start's arguments from interceptors: name them so the start is attested too.
	ctx = attest.WithStart(ctx, contract.InstanceWorkflowID(ref), contract.InstanceWorkflowName, contract.InstanceInput{Ref: ref})
	h, err := c.Temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start, UpdateOptions: upd,
	})
	return accepted(ref, requestID, h, err)
}

// accepted turns an update handle into a Handle, or into the rejection it holds.
// A rejected update comes back as an already-completed handle; reading it with a
// cancelled context returns that at once and never waits for a running operation.
func accepted(ref contract.Ref, requestID string, h client.WorkflowUpdateHandle, err error) (*Handle, error) {
	if err != nil {
		return nil, translate(ref.String(), err)
	}
	probe, cancel := context.WithCancel(context.Background())
	cancel()
	if err := translate(ref.String(), h.Get(probe, nil)); IsBadRequest(err) {
		return nil, err
	}
	return &Handle{Ref: ref, RequestID: requestID, update: h}, nil
}

// Decide sends retry, resolve or abandon for the instance's failed operation.
func (c *Client) Decide(ctx context.Context, ref contract.Ref, d lifecycle.Decision, req contract.DecisionRequest, requestID string) (*Handle, error) {
	if requestID == "" {
		requestID = uuid.NewString()
	}
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: string(d), UpdateID: requestID,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageAccepted,
	})
	return accepted(ref, requestID, h, err)
}

// Status queries the instance's status (EMCO shape), with Running and Ready as of the
// observer's last sweep.
func (c *Client) Status(ctx context.Context, ref contract.Ref, req contract.StatusRequest) (*contract.Status, error) {
	st, err := c.query(ctx, ref, req)
	if err != nil {
		return nil, err
	}
	c.freshen(ctx, st)
	c.withRetrying(ctx, st)
	c.withWaiting(ctx, st)
	c.withObjects(ctx, ref, st, req.Output)
	return st, nil
}

// query is the instance's status as it recorded it; progress polling needs no more.
func (c *Client) query(ctx context.Context, ref contract.Ref, req contract.StatusRequest) (*contract.Status, error) {
	v, err := c.Temporal.QueryWorkflow(ctx, contract.InstanceWorkflowID(ref), "", contract.QueryStatus, req)
	if err != nil {
		return nil, translate(ref.String(), err)
	}
	var st contract.Status
	if err := v.Get(&st); err != nil {
		return nil, fmt.Errorf("decode status of %s: %w", ref, err)
	}
	return &st, nil
}
