package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// CheckDrift has the instance run a drift check now and returns its verdict. A busy instance
// refuses (RejectedError with Busy): the check never waits behind an operation.
func (c *Client) CheckDrift(ctx context.Context, ref contract.Ref, req contract.DriftRequest, requestID string) (contract.DriftOutput, error) {
	var out contract.DriftOutput
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.InstanceWorkflowID(ref), UpdateName: contract.UpdateCheckDrift, UpdateID: requestID,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return out, translate(ref.String(), err)
	}
	return out, translate(ref.String(), h.Get(ctx, &out))
}

// MinDriftInterval is the shortest schedule allowed: each run plans every instance in scope.
const MinDriftInterval = 5 * time.Minute

// DriftScheduleID is the Temporal Schedule of a drift check; sweeps it starts are drift-sweep/<id>-<time>.
func DriftScheduleID(id string) string { return "drift/" + id }

// ScheduleDrift creates the Temporal Schedule that sweeps scope every interval, skipping a run
// while the previous one still runs. An existing schedule of that ID is refused.
func (c *Client) ScheduleDrift(ctx context.Context, id string, every time.Duration, scope contract.DriftScope) error {
	scope.Schedule = DriftScheduleID(id)
	_, err := c.Temporal.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:      DriftScheduleID(id),
		Spec:    client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}},
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Memo:    map[string]any{"scope": scope},
		Action: &client.ScheduleWorkflowAction{
			ID: contract.DriftSweepIDPrefix + id, Workflow: contract.DriftSweepWorkflowName, Args: []any{scope},
			TaskQueue: c.TaskQueue, StaticSummary: DriftSummary(scope), Priority: contract.TaskPriority(contract.PriorityDrift, ""),
		},
	})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return &RejectedError{Message: fmt.Sprintf("--id %s: drift schedule %s exists already; unschedule it first", id, DriftScheduleID(id))}
	}
	return err
}

// DriftSummary says what a sweep checks, for the UI.
func DriftSummary(scope contract.DriftScope) string {
	s := "drift check of every Deployed instance"
	if scope.Stack != "" {
		s += " of stack " + scope.Stack
	}
	if scope.Tenant != "" {
		s += " in tenant " + scope.Tenant
	}
	if scope.Remediate != "" {
		s += ", remediate: " + scope.Remediate
	}
	return s
}

// Unschedule deletes a drift schedule; running sweeps finish.
func (c *Client) Unschedule(ctx context.Context, id string) error {
	err := c.Temporal.ScheduleClient().GetHandle(ctx, DriftScheduleID(id)).Delete(ctx)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return &RejectedError{Message: fmt.Sprintf("no drift schedule %s", DriftScheduleID(id))}
	}
	return err
}

// SweepDrift runs one sweep now and waits for it.
func (c *Client) SweepDrift(ctx context.Context, scope contract.DriftScope) (contract.DriftSweepResult, error) {
	var res contract.DriftSweepResult
	run, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.DriftSweepIDPrefix + "now-" + uuid.NewString(), TaskQueue: c.TaskQueue, StaticSummary: DriftSummary(scope),
		// Its checks go after people's and rollouts' work; so do the deploys it sends (OperationPriority).
		Priority: contract.TaskPriority(contract.PriorityDrift, ""),
	}, contract.DriftSweepWorkflowName, scope)
	if err != nil {
		return res, err
	}
	return res, translate("drift sweep", run.Get(ctx, &res))
}

// DriftItem is one drifted instance with what its last check found.
type DriftItem struct {
	Ref       string    `json:"instance"`
	Stack     string    `json:"stack,omitempty"`
	CheckedAt time.Time `json:"checkedAt"`
	Revision  string    `json:"revision"`
	Resources []string  `json:"resources"`
}

// Drifted lists the instances whose last drift check found drift (search attribute InstanceDrifted).
func (c *Client) Drifted(ctx context.Context, f ListFilter) ([]DriftItem, error) {
	f.Drifted = string(lifecycle.ConditionTrue)
	items, err := c.List(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]DriftItem, 0, len(items))
	for _, it := range items {
		ref := contract.Ref{Tenant: it.Tenant, Name: it.Name}
		st, err := c.query(ctx, ref, contract.StatusRequest{})
		if err != nil {
			return nil, err
		}
		if st.Drift == nil || !st.Drift.Drifted {
			continue // redeployed since visibility was written
		}
		out = append(out, DriftItem{Ref: ref.String(), Stack: st.Stack, CheckedAt: st.Drift.CheckedAt,
			Revision: st.Drift.Revision, Resources: st.Drift.Resources})
	}
	return out, nil
}
