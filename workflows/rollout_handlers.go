package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/contract"
)

func (r *rollout) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, contract.QueryStatus, func(from contract.RolloutStatusFrom) (contract.RolloutStatus, error) {
		return r.statusFrom(from.FromBatch), nil
	}); err != nil {
		return err
	}
	handlers := map[string]struct {
		admit func() error
		apply func(ctx workflow.Context, req contract.RolloutRequest)
	}{
		contract.UpdateRolloutPause:  {r.admitPause, r.pause},
		contract.UpdateRolloutResume: {r.admitResume, r.resume},
		contract.UpdateRolloutAbort:  {r.admitAbort, r.abort},
	}
	for _, name := range []string{contract.UpdateRolloutPause, contract.UpdateRolloutResume, contract.UpdateRolloutAbort} {
		h := handlers[name]
		err := workflow.SetUpdateHandlerWithOptions(ctx, name,
			func(ctx workflow.Context, req contract.RolloutRequest) (contract.RolloutStatus, error) {
				if err := h.admit(); err != nil {
					return contract.RolloutStatus{}, err
				}
				h.apply(ctx, req)
				r.show(ctx)
				return r.status(ctx), nil
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req contract.RolloutRequest) error { return h.admit() }})
		if err != nil {
			return err
		}
	}
	return r.registerApprove(ctx)
}

func (r *rollout) admitPause() error {
	if r.s.Phase != contract.PhaseRunning {
		return notAllowed("rollout is %s; only a Running rollout can be paused", r.s.Phase)
	}
	return nil
}

func (r *rollout) admitResume() error {
	if r.s.Phase != contract.PhasePaused && r.s.Phase != contract.PhaseStopped {
		return notAllowed("rollout is %s; only a Paused or Stopped rollout can be resumed", r.s.Phase)
	}
	return nil
}

func (r *rollout) admitAbort() error {
	if r.s.Phase == contract.PhaseAborted || r.s.Phase == contract.PhaseCompleted || r.s.Phase == contract.PhasePlanning {
		return notAllowed("rollout is %s; there is nothing to abort", r.s.Phase)
	}
	return nil
}

func (r *rollout) pause(ctx workflow.Context, req contract.RolloutRequest) {
	r.s.Phase, r.s.Reason = contract.PhasePaused, decided("paused", req)
}

// resume goes on; after a stop, the failed instances are retried first, in the current batch.
func (r *rollout) resume(ctx workflow.Context, req contract.RolloutRequest) {
	for i := range r.s.Instances {
		if in := &r.s.Instances[i]; in.Status == contract.RolloutFailed {
			in.Status, in.Retry, in.Batch = contract.RolloutPending, true, min(r.s.Batch, r.s.Batches)
		}
	}
	r.s.Failures = 0
	r.s.Phase, r.s.Reason = contract.PhaseRunning, ""
}

// abort ends the rollout; deploys in flight run to their end on their instances.
func (r *rollout) abort(ctx workflow.Context, req contract.RolloutRequest) {
	r.s.Phase, r.s.Reason = contract.PhaseAborted, decided("aborted", req)
	if r.inFlight > 0 {
		var refs []string
		for _, in := range r.s.Instances {
			if in.Status == contract.RolloutStarting || in.Status == contract.RolloutRunning {
				refs = append(refs, in.Ref.String())
			}
		}
		r.s.Reason += "; still deploying on their own: " + strings.Join(refs, ", ")
	}
}

func decided(what string, req contract.RolloutRequest) string {
	s := what
	if req.Actor != "" {
		s += " by " + req.Actor
	}
	if req.Reason != "" {
		s += ": " + req.Reason
	}
	return s
}
