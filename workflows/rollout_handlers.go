package workflows

import (
	"strings"

	"go.temporal.io/sdk/workflow"
)

// Rollout updates, named for the CLI commands that send them.
const (
	UpdateRolloutPause  = "pause"
	UpdateRolloutResume = "resume"
	UpdateRolloutAbort  = "abort"
)

// RolloutRequest is the argument of pause, resume and abort.
type RolloutRequest struct {
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
}

func (r *rollout) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryStatus, func() (RolloutStatus, error) { return r.status(ctx), nil }); err != nil {
		return err
	}
	handlers := map[string]struct {
		admit func() error
		apply func(ctx workflow.Context, req RolloutRequest)
	}{
		UpdateRolloutPause:  {r.admitPause, r.pause},
		UpdateRolloutResume: {r.admitResume, r.resume},
		UpdateRolloutAbort:  {r.admitAbort, r.abort},
	}
	for _, name := range []string{UpdateRolloutPause, UpdateRolloutResume, UpdateRolloutAbort} {
		h := handlers[name]
		err := workflow.SetUpdateHandlerWithOptions(ctx, name,
			func(ctx workflow.Context, req RolloutRequest) (RolloutStatus, error) {
				if err := h.admit(); err != nil {
					return RolloutStatus{}, err
				}
				h.apply(ctx, req)
				r.show(ctx)
				return r.status(ctx), nil
			},
			workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req RolloutRequest) error { return h.admit() }})
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *rollout) admitPause() error {
	if r.s.Phase != PhaseRunning {
		return notAllowed("rollout is %s; only a Running rollout can be paused", r.s.Phase)
	}
	return nil
}

func (r *rollout) admitResume() error {
	if r.s.Phase != PhasePaused && r.s.Phase != PhaseStopped {
		return notAllowed("rollout is %s; only a Paused or Stopped rollout can be resumed", r.s.Phase)
	}
	return nil
}

func (r *rollout) admitAbort() error {
	if r.s.Phase == PhaseAborted || r.s.Phase == PhaseCompleted || r.s.Phase == PhasePlanning {
		return notAllowed("rollout is %s; there is nothing to abort", r.s.Phase)
	}
	return nil
}

func (r *rollout) pause(ctx workflow.Context, req RolloutRequest) {
	r.s.Phase, r.s.Reason = PhasePaused, decided("paused", req)
}

// resume goes on; after a stop, the failed instances are retried first, in the current batch.
func (r *rollout) resume(ctx workflow.Context, req RolloutRequest) {
	for i := range r.s.Instances {
		if in := &r.s.Instances[i]; in.Status == RolloutFailed {
			in.Status, in.Retry, in.Batch = RolloutPending, true, min(r.s.Batch, r.s.Batches)
		}
	}
	r.s.Failures = 0
	r.s.Phase, r.s.Reason = PhaseRunning, ""
}

// abort ends the rollout; deploys in flight run to their end on their instances.
func (r *rollout) abort(ctx workflow.Context, req RolloutRequest) {
	r.s.Phase, r.s.Reason = PhaseAborted, decided("aborted", req)
	if r.inFlight > 0 {
		var refs []string
		for _, in := range r.s.Instances {
			if in.Status == RolloutStarting || in.Status == RolloutRunning {
				refs = append(refs, in.Ref.String())
			}
		}
		r.s.Reason += "; still deploying on their own: " + strings.Join(refs, ", ")
	}
}

func decided(what string, req RolloutRequest) string {
	s := what
	if req.Actor != "" {
		s += " by " + req.Actor
	}
	if req.Reason != "" {
		s += ": " + req.Reason
	}
	return s
}
