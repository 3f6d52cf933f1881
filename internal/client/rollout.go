package client

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/errkind"
)

// RolloutNotFoundError: no rollout has that ID.
type RolloutNotFoundError struct{ ID string }

func (e *RolloutNotFoundError) Error() string {
	return fmt.Sprintf("rollout %s does not exist (slipway rollout list shows them)", e.ID)
}

func (e *RolloutNotFoundError) kind() errkind.Kind   { return errkind.NotFound }
func (e *RolloutNotFoundError) Is(target error) bool { return target == e.kind() }

// PlanRollout computes a rollout's action list on a worker; it changes nothing.
func (c *Client) PlanRollout(ctx context.Context, spec contract.RolloutSpec) (contract.RolloutPlan, error) {
	var plan contract.RolloutPlan
	run, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "rollout-plan/" + uuid.NewString(), TaskQueue: c.TaskQueue,
		StaticSummary: "rollout plan of stack " + spec.Stack + " (changes nothing)",
	}, contract.RolloutPlanWorkflowName, spec)
	if err != nil {
		return plan, err
	}
	return plan, translate("stack "+spec.Stack, run.Get(ctx, &plan))
}

// StartRollout starts the rollout workflow rollout/<spec.ID>; an ID in use is refused.
func (c *Client) StartRollout(ctx context.Context, spec contract.RolloutSpec) error {
	return c.StartRolloutAt(ctx, spec, time.Time{})
}

// StartRolloutAt starts it at a later time: Temporal holds the start (StartDelay) until then,
// durably, and the rollout is listed from now on.
func (c *Client) StartRolloutAt(ctx context.Context, spec contract.RolloutSpec, at time.Time) error {
	err := c.startRollout(ctx, spec, at)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return &RejectedError{Message: fmt.Sprintf("--id %s: a rollout with that ID exists already; choose another", spec.ID)}
	}
	return err
}

// startRollout returns Temporal's WorkflowExecutionAlreadyStarted for an ID in use, running or ended.
func (c *Client) startRollout(ctx context.Context, spec contract.RolloutSpec, at time.Time) error {
	sa := []temporal.SearchAttributeUpdate{contract.SAInstanceStack.ValueSet(spec.Stack),
		contract.SARolloutPhase.ValueSet(contract.PhaseRunning)}
	if spec.Tenant != "" {
		sa = append(sa, contract.SATenant.ValueSet(spec.Tenant))
	}
	_, err := c.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: contract.RolloutWorkflowID(spec.ID), TaskQueue: c.TaskQueue,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		// Without it the SDK hands back the ID's last run, ended or not, as if this one started.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            RolloutSummary(spec),
		TypedSearchAttributes:                    temporal.NewSearchAttributes(sa...),
		Priority:                                 contract.TaskPriority(cmp.Or(spec.Priority, contract.PriorityRollout), spec.Tenant),
		StartDelay:                               max(time.Until(at), 0),
	}, contract.RolloutWorkflowName, contract.RolloutInput{Spec: spec})
	return err
}

// RolloutSummary is a rollout's static summary in the Temporal UI.
func RolloutSummary(spec contract.RolloutSpec) string {
	var what []string
	for _, s := range spec.Set {
		what = append(what, s.Key+"="+s.Value)
	}
	if spec.StackRev != "" {
		what = append(what, "stack@"+spec.StackRev)
	}
	if spec.To != "" {
		what = append(what, "release "+spec.To)
	}
	if spec.Undoes != "" {
		what = append(what, fmt.Sprintf("undo of %s (%d instance(s))", spec.Undoes, len(spec.Pins)))
	} else if len(spec.Pins) > 0 {
		what = append(what, fmt.Sprintf("re-pin of %d instance(s)", len(spec.Pins)))
	}
	scope := spec.Stack
	if spec.Tenant != "" {
		scope += " in tenant " + spec.Tenant
	}
	return fmt.Sprintf("rollout %s of stack %s: %s", spec.ID, scope, strings.Join(what, ", "))
}

// RolloutWaitingError: the rollout's start is held by Temporal (a deadline wave before its
// window), so it answers no query yet; Tenant is its search attribute, to decide on.
type RolloutWaitingError struct{ ID, Tenant string }

func (e *RolloutWaitingError) Error() string {
	return fmt.Sprintf("rollout %s has not started yet: its start waits (a deadline wave starts when its window opens)", e.ID)
}

func (e *RolloutWaitingError) kind() errkind.Kind   { return errkind.Busy }
func (e *RolloutWaitingError) Is(target error) bool { return target == e.kind() }

// RolloutStatus queries a rollout, running or ended.
func (c *Client) RolloutStatus(ctx context.Context, id string) (*contract.RolloutStatus, error) {
	return c.rolloutStatusFrom(ctx, id, 0)
}

// rolloutStatusFrom reads the status with the instances of fromBatch and later (all when 0); a
// rollout from before the argument answers with all of them.
func (c *Client) rolloutStatusFrom(ctx context.Context, id string, fromBatch int) (*contract.RolloutStatus, error) {
	var args []any
	if fromBatch > 0 {
		args = append(args, contract.RolloutStatusFrom{FromBatch: fromBatch})
	}
	v, err := c.Temporal.QueryWorkflow(ctx, contract.RolloutWorkflowID(id), "", contract.QueryStatus, args...)
	var notReady *serviceerror.WorkflowNotReady
	if errors.As(err, &notReady) {
		d, derr := c.Temporal.DescribeWorkflowExecution(ctx, contract.RolloutWorkflowID(id), "")
		if derr != nil {
			return nil, translateRollout(id, derr)
		}
		w := &RolloutWaitingError{ID: id}
		decodeSA(d.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields(), contract.SATenant.GetName(), &w.Tenant)
		return nil, w
	}
	if err != nil {
		return nil, translateRollout(id, err)
	}
	var st contract.RolloutStatus
	if err := v.Get(&st); err != nil {
		return nil, fmt.Errorf("decode status of rollout %s: %w", id, err)
	}
	return &st, nil
}

// WorkflowTenant is the tenant a rollout's or preview's workflow carries (its Tenant search
// attribute; "" for one over every tenant), and whether the workflow exists: what a server decides
// on before it reads anything else of it.
func (c *Client) WorkflowTenant(ctx context.Context, workflowID string) (tenant string, found bool, err error) {
	d, err := c.Temporal.DescribeWorkflowExecution(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	switch {
	case errors.As(err, &nf):
		return "", false, nil
	case err != nil:
		return "", false, translate(workflowID, err)
	}
	decodeSA(d.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields(), contract.SATenant.GetName(), &tenant)
	return tenant, true, nil
}

// ControlRollout sends pause, resume, abort or approve-fingerprint and returns the rollout's status after it.
func (c *Client) ControlRollout(ctx context.Context, id, update string, req any) (*contract.RolloutStatus, error) {
	h, err := c.Temporal.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{
		WorkflowID: contract.RolloutWorkflowID(id), UpdateName: update, UpdateID: uuid.NewString(),
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err != nil {
		return nil, translateRollout(id, err)
	}
	var st contract.RolloutStatus
	if err := h.Get(ctx, &st); err != nil {
		return nil, translateRollout(id, err)
	}
	return &st, nil
}

// RolloutItem is one rollout as visibility lists it.
type RolloutItem struct {
	ID      string `json:"id"`
	Stack   string `json:"stack"`
	Phase   string `json:"phase"`
	Running bool   `json:"running"`
	Summary string `json:"summary,omitempty"`
}

// ListRollouts lists rollouts, newest first.
func (c *Client) ListRollouts(ctx context.Context) ([]RolloutItem, error) {
	var out []RolloutItem
	var token []byte
	for {
		resp, err := c.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: c.Namespace, NextPageToken: token,
			Query: fmt.Sprintf("WorkflowType = '%s'", contract.RolloutWorkflowName),
		})
		if err != nil {
			return nil, err
		}
		for _, ex := range resp.Executions {
			it := RolloutItem{ID: strings.TrimPrefix(ex.GetExecution().GetWorkflowId(), "rollout/"), Running: ex.GetCloseTime() == nil}
			fields := ex.GetSearchAttributes().GetIndexedFields()
			decodeSA(fields, contract.SAInstanceStack.GetName(), &it.Stack)
			decodeSA(fields, contract.SARolloutPhase.GetName(), &it.Phase)
			out = append(out, it)
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return out, nil
		}
	}
}

// followInterval is the least time between two status reads of a followed rollout: a rollout of
// thousands moves many times a second.
const followInterval = time.Second

// FollowRollout calls progress with the rollout's status when its history moves, at most once a
// followInterval, across continue-as-new runs, by long poll; it returns the last status once the
// rollout ends or progress says to stop. The first read of each run holds every instance; the
// next ones only those from the batch the previous read was in up to the one after the current
// (FromBatch), the only ones that can have moved, so a read costs a few batches, not the fleet.
// The status a closed rollout ends with holds every instance.
func (c *Client) FollowRollout(ctx context.Context, id string, progress func(*contract.RolloutStatus) (stop bool)) (*contract.RolloutStatus, error) {
	wid := contract.RolloutWorkflowID(id)
	for {
		d, err := c.Temporal.DescribeWorkflowExecution(ctx, wid, "")
		if err != nil {
			return nil, translateRollout(id, err)
		}
		info := d.GetWorkflowExecutionInfo()
		st, err := c.RolloutStatus(ctx, id)
		if err != nil {
			return nil, err
		}
		if progress(st) || info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return st, nil
		}
		if st, err = c.followRun(ctx, id, info, max(st.Batch, 1), progress); st != nil || err != nil {
			return st, err
		}
	}
}

// followRun reads the status again after the run's workflow tasks, coalescing those that come
// within a followInterval of the last read (one left pending is read when the interval ends, so
// the last move is always shown), each read from the batch the one before it was in (from, at
// first); it returns nil, nil when the run closes.
func (c *Client) followRun(ctx context.Context, id string, info *workflowpb.WorkflowExecutionInfo, from int, progress func(*contract.RolloutStatus) bool) (*contract.RolloutStatus, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	moved, closed := make(chan struct{}, 1), make(chan error, 1)
	go func() {
		it := c.Temporal.GetWorkflowHistory(ctx, info.GetExecution().GetWorkflowId(), info.GetExecution().GetRunId(), true, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				closed <- err
				return
			}
			if ev.GetEventId() > info.GetHistoryLength() && ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED {
				select {
				case moved <- struct{}{}:
				default: // one is pending already
				}
			}
		}
		closed <- nil
	}()
	var last time.Time
	for {
		select {
		case err := <-closed:
			return nil, err
		case <-moved:
		}
		if wait := followInterval - time.Since(last); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		last = time.Now()
		next, err := c.rolloutStatusFrom(ctx, id, from)
		if err != nil {
			continue
		}
		if progress(next) {
			return next, nil
		}
		from = max(next.Batch, 1)
	}
}

func translateRollout(id string, err error) error {
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return &RolloutNotFoundError{ID: id}
	}
	return translate("rollout "+id, err)
}

// decodeSA reads one keyword search attribute; they are plain JSON, never run through the codec.
func decodeSA(fields map[string]*commonpb.Payload, name string, dst *string) {
	if p, ok := fields[name]; ok {
		_ = converter.GetDefaultDataConverter().FromPayload(p, dst)
	}
}
