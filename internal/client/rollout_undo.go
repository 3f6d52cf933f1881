package client

import (
	"fmt"
	"slices"

	"github.com/slipway-dev/slipway/internal/contract"
)

// UndoSpec is the rollout (ID id) that re-pins each instance st deployed to the release it ran
// before, through st's waves; a rollout still running, or one that re-pinned nothing, is rejected.
func UndoSpec(st *contract.RolloutStatus, id, actor string) (contract.RolloutSpec, error) {
	undone := st.Spec.ID
	switch {
	case !slices.Contains([]string{contract.PhaseCompleted, contract.PhaseStopped, contract.PhaseAborted}, st.Phase):
		return contract.RolloutSpec{}, &RejectedError{Message: fmt.Sprintf("ID %s: the rollout is %s; abort it first (slipway rollout abort %s), then undo it", undone, st.Phase, undone)}
	case st.Spec.To == "" && len(st.Spec.Pins) == 0:
		return contract.RolloutSpec{}, &RejectedError{Message: fmt.Sprintf("ID %s: it changed parameters, not releases; roll the old values out with rollout start --set", undone)}
	}
	pins := map[string]string{}
	for _, in := range st.Instances {
		changed := in.Status == contract.RolloutUpdated || in.Status == contract.RolloutFailed || in.Status == contract.RolloutRunning
		if rel := contract.PinnedRelease(in.Current); changed && rel != "" && in.Current != in.Desired {
			pins[in.Ref.String()] = rel
		}
	}
	if len(pins) == 0 {
		return contract.RolloutSpec{}, &RejectedError{Message: fmt.Sprintf("ID %s: it re-pinned no instance from a release, so there is nothing to undo", undone)}
	}
	spec := st.Spec
	spec.ID, spec.Actor, spec.To, spec.Pins, spec.Undoes, spec.AllowDowngrade = id, actor, "", pins, undone, true
	return spec, nil
}
