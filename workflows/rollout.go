package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/notify"
)

// RolloutWorkflow rolls a change out to a stack's instances in batches, StatefulSet style
// (ID rollout/<id>). It computes the action list first, then deploys batch after batch, at
// most MaxUnavailable at once; each instance tells it when its deploy ends. It stops when
// failures reach MaxFailures, and continues as new between batches so 1,000 instances keep
// the history bounded.
func RolloutWorkflow(ctx workflow.Context, in contract.RolloutInput) (contract.RolloutStatus, error) {
	r := &rollout{doneChan: workflow.GetSignalChannel(ctx, contract.SignalRolloutInstance)}
	r.s.Phase = contract.PhasePlanning
	if in.State != nil {
		r.s = *in.State
	}
	// Pause, resume and abort are decided by the policy before their handlers run (verified-requests v2).
	attest.SetAuthorizer(ctx, r.authorize)
	if err := r.register(ctx); err != nil {
		return contract.RolloutStatus{}, err
	}
	workflow.Go(ctx, r.receiveDone)
	workflow.Go(ctx, r.receiveApprovalWaits)
	if in.State == nil {
		if err := r.plan(ctx, in.Spec); err != nil {
			return contract.RolloutStatus{}, err
		}
		// Its deploys are the starter's requests (on behalf of), not the worker's own.
		if a, ok := attest.Verified(ctx); ok {
			r.s.Requester = onBehalfOf(&a)
		}
	}
	for r.s.Batch <= r.s.Batches && r.s.Phase != contract.PhaseAborted {
		if err := r.runBatch(ctx); err != nil {
			return r.status(ctx), err
		}
		if r.s.Phase == contract.PhaseAborted {
			break
		}
		if err := r.watchWave(ctx); err != nil {
			return r.status(ctx), err
		}
		if r.s.Phase == contract.PhaseAborted {
			break
		}
		r.endBatch(ctx)
		if err := workflow.Await(ctx, func() bool { return r.s.Phase == contract.PhaseRunning || r.s.Phase == contract.PhaseAborted }); err != nil {
			return r.status(ctx), err
		}
		if r.s.Batch <= r.s.Batches && r.shouldContinueAsNew(ctx) {
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return r.status(ctx), err
			}
			st := r.s
			return contract.RolloutStatus{}, workflow.NewContinueAsNewError(ctx, contract.RolloutWorkflowName, contract.RolloutInput{Spec: st.Spec, State: &st})
		}
	}
	if r.s.Phase != contract.PhaseAborted {
		r.s.Phase, r.s.Reason = contract.PhaseCompleted, ""
	}
	r.s.EndedAt = workflow.Now(ctx)
	r.show(ctx)
	err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) })
	return r.status(ctx), err
}

// rollout is the running rollout: its record plus what lives only in this run.
type rollout struct {
	s        contract.RolloutState
	inFlight int
	doneChan workflow.ReceiveChannel
	shown    string // the phase last upserted, so a search attribute changes once per phase
}

// rolloutHistoryLimit continues a rollout as new between batches once its history is this long.
const rolloutHistoryLimit = 4000

func (r *rollout) shouldContinueAsNew(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetCurrentHistoryLength() > rolloutHistoryLimit || info.GetContinueAsNewSuggested()
}

// plan computes the action list and numbers the batches.
func (r *rollout) plan(ctx workflow.Context, spec contract.RolloutSpec) error {
	var plan contract.RolloutPlan
	if err := workflow.ExecuteActivity(inspectCtx(ctx), contract.ActPlanRollout, spec).Get(ctx, &plan); err != nil {
		return err
	}
	r.s = contract.RolloutState{Spec: spec, Phase: contract.PhaseRunning, Head: plan.Head, Batch: 1, StartedAt: workflow.Now(ctx), Stateful: plan.Stateful}
	r.s.Batches = AssignBatches(spec, plan.Actions)
	for _, a := range plan.Actions {
		in := contract.RolloutInstance{RolloutAction: a, Status: contract.RolloutPending}
		if a.Action == contract.ActionSkip {
			in.Status = contract.RolloutSkipped
			if a.Reason == contract.ReasonAtTarget {
				in.Status = contract.RolloutAtTarget
			}
		}
		r.s.Instances = append(r.s.Instances, in)
	}
	r.show(ctx)
	return nil
}

// runBatch deploys the current batch's pending instances, at most maxInFlight at once, and
// returns when none is pending or in flight — or at once when the rollout is aborted.
func (r *rollout) runBatch(ctx workflow.Context) error {
	for {
		var next *contract.RolloutInstance
		err := workflow.Await(ctx, func() bool {
			if r.s.Phase == contract.PhaseAborted {
				return true
			}
			next = nil
			if r.s.Phase == contract.PhaseRunning && r.inFlight < r.s.MaxInFlight() {
				next = r.nextPending()
			}
			return next != nil || (r.inFlight == 0 && r.nextPending() == nil && r.s.Phase != contract.PhaseStopped)
		})
		if err != nil || r.s.Phase == contract.PhaseAborted {
			return err
		}
		if next == nil {
			return nil
		}
		r.start(ctx, next)
	}
}

func (r *rollout) nextPending() *contract.RolloutInstance {
	for i := range r.s.Instances {
		if in := &r.s.Instances[i]; in.Batch == r.s.Batch && in.Status == contract.RolloutPending {
			return in
		}
	}
	return nil
}

// start sends one instance's deploy; the instance's signal says how it ended.
func (r *rollout) start(ctx workflow.Context, in *contract.RolloutInstance) {
	in.Status, in.Error = contract.RolloutStarting, ""
	in.Tries++
	r.inFlight++
	id := contract.RolloutWorkflowID(r.s.Spec.ID)
	req := contract.RolloutDeployInput{Rollout: id, Spec: r.s.Spec, Ref: in.Ref, Retry: in.Retry,
		RequestID: fmt.Sprintf("%s/%s/%d", id, in.Ref, in.Tries), OnBehalfOf: r.s.Requester}
	ref := in.Ref
	workflow.Go(ctx, func(ctx workflow.Context) {
		var out contract.RolloutDeployOutput
		err := workflow.ExecuteActivity(requestCtx(ctx), contract.ActRolloutDeploy, req).Get(ctx, &out)
		in := r.s.Find(ref)
		if in.Status != contract.RolloutStarting {
			return // its operation already ended and said so
		}
		in.Retry = false
		switch {
		case err != nil:
			r.fail(ctx, in, errorMessage(err))
		case out.Outcome == contract.DeployStarted:
			in.Status = contract.RolloutRunning
		case out.Outcome == contract.DeployAtTarget:
			in.Status, in.Reason, in.Ready = contract.RolloutAtTarget, out.Message, out.Ready
			r.inFlight--
		case out.Outcome == contract.DeployBusy && in.Tries < maxBusyTries:
			in.Status, in.Reason = contract.RolloutPending, "busy: "+out.Message
			in.Batch = r.s.Batch + 1
			r.s.Batches = max(r.s.Batches, in.Batch)
			r.inFlight--
		default:
			in.Status, in.Reason = contract.RolloutSkipped, out.Message
			r.inFlight--
		}
		r.show(ctx)
	})
}

// receiveDone applies the instances' signals: each ends one in-flight deploy.
func (r *rollout) receiveDone(ctx workflow.Context) {
	for {
		var d contract.RolloutInstanceDone
		if !r.doneChan.Receive(ctx, &d) {
			return
		}
		in := r.s.Find(d.Ref)
		if in == nil || (in.Status != contract.RolloutStarting && in.Status != contract.RolloutRunning) {
			continue
		}
		in.Ready, in.Awaiting = d.Ready, nil
		if d.Result == contract.ResultSucceeded {
			in.Status, in.Error = contract.RolloutUpdated, ""
			r.inFlight--
		} else {
			r.fail(ctx, in, fmt.Sprintf("%s %s: %s", d.State, d.OpID, d.Error))
		}
		r.show(ctx)
	}
}

// fail records an instance's failure and stops the rollout once failures reach the limit.
func (r *rollout) fail(ctx workflow.Context, in *contract.RolloutInstance, msg string) {
	in.Status, in.Error = contract.RolloutFailed, msg
	r.inFlight--
	r.s.Failures++
	if r.s.Failures >= max(r.s.Spec.MaxFailures, 1) && r.s.Phase == contract.PhaseRunning {
		r.s.Phase = contract.PhaseStopped
		r.s.Reason = fmt.Sprintf("%d instance(s) failed (--max-failures %d): %s; fix them, then resume (failed ones are retried) or abort",
			r.s.Failures, r.s.Spec.MaxFailures, strings.Join(r.s.FailedRefs(), ", "))
	}
}

// endBatch moves to the next batch, pausing there when asked to.
func (r *rollout) endBatch(ctx workflow.Context) {
	workflow.GetLogger(ctx).Info("rollout batch done", "batch", r.s.Batch, "progress", r.s.Line())
	ready, updated, total := r.s.Counts()
	rec := contract.BatchRecord{Batch: r.s.Batch, Ready: ready, Updated: updated, Total: total,
		Failed: len(r.s.FailedRefs()), At: workflow.Now(ctx)}
	r.s.Ended = append(r.s.Ended, rec)
	id := contract.RolloutWorkflowID(r.s.Spec.ID)
	startNotify(ctx, notify.Event{ID: fmt.Sprintf("%s/batch-%d", id, rec.Batch), Kind: notify.KindRolloutBatch,
		Tenant: r.s.Spec.Tenant, Rollout: r.s.Spec.ID, State: r.s.Phase, At: rec.At,
		Message: fmt.Sprintf("rollout %s of stack %s: batch %d of %d ended, ready/updated/total %d/%d/%d, %d failed",
			r.s.Spec.ID, r.s.Spec.Stack, rec.Batch, r.s.Batches, rec.Ready, rec.Updated, rec.Total, rec.Failed)})
	r.s.Batch++
	if r.s.Spec.PauseAfter && r.s.Batch <= r.s.Batches && r.s.Phase == contract.PhaseRunning {
		r.s.Phase, r.s.Reason = contract.PhasePaused, fmt.Sprintf("paused after batch %d (--pause-after-batch)", r.s.Batch-1)
	}
	r.show(ctx)
}

func (r *rollout) status(ctx workflow.Context) contract.RolloutStatus { return r.statusFrom(0) }

// statusFrom is the status with the instances of batch fromBatch up to the one after the current
// (all when 0): an instance changes only while its batch runs (a retry moves to the current batch,
// a busy one to the next), so the others are as the follower that last saw fromBatch saw them.
func (r *rollout) statusFrom(fromBatch int) contract.RolloutStatus {
	ready, updated, total := r.s.Counts()
	st := r.s
	st.Instances = nil
	if fromBatch <= 0 {
		st.Instances = make([]contract.RolloutInstance, 0, len(r.s.Instances)) // a follower's read holds a few batches, not this
	}
	for _, in := range r.s.Instances {
		if fromBatch > 0 && (in.Batch < fromBatch || in.Batch > r.s.Batch+1) {
			continue
		}
		// The waiting plans' hashes are for approvers: a status reader sees shapes, not hashes.
		if a := in.Awaiting; a != nil {
			c := *a
			c.Hash = ""
			in.Awaiting = &c
		}
		st.Instances = append(st.Instances, in)
	}
	if len(st.Instances) == 0 {
		st.Instances = nil // as before the filter: a result's bytes stay the same
	}
	return contract.RolloutStatus{RolloutState: st, ID: contract.RolloutWorkflowID(r.s.Spec.ID), InFlight: r.inFlight,
		Ready: ready, Updated: updated, Total: total, FromBatch: max(fromBatch, 0)}
}

func (r *rollout) show(ctx workflow.Context) {
	workflow.SetCurrentDetails(ctx, r.s.Line())
	if r.shown == r.s.Phase {
		return
	}
	r.shown = r.s.Phase
	err := workflow.UpsertTypedSearchAttributes(ctx, contract.SARolloutPhase.ValueSet(r.s.Phase))
	if err != nil {
		workflow.GetLogger(ctx).Warn("search attributes not upserted", "error", err)
	}
}

// requestCtx is for calls that send a request to another workflow and wait for it to be accepted.
func requestCtx(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    2 * time.Minute,
		ScheduleToCloseTimeout: transientBudget,
		RetryPolicy:            retryPolicy(),
	})
}
