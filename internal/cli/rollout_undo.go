package cli

import (
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) rolloutUndoCmd() *cobra.Command {
	var id string
	var wait bool
	cmd := &cobra.Command{
		Use:   "undo ID [--id NEW] [--wait]",
		Short: "Re-pin the instances a release rollout changed to the release each ran before, through the same waves",
		Long: `Undo starts a new rollout (its own ID) that re-pins every instance rollout ID deployed to the
release it ran before, with ID's batches, canary wave and watch time. The undone rollout must have
ended (completed, stopped or aborted). A rollback deploys the old config again; it cannot bring
back data a stateful resource lost when the release deleted or replaced it (docs/fleet.md).`,
		Args: exactArgs(1, "the rollout ID to undo"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if id == "" {
				id = "r-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:8]
			} else if !labelRE.MatchString(id) {
				return usageErr("--id %q: must be a lowercase label (a-z, 0-9, -)", id)
			}
			return g.withSignedClient(cmd, func(c *client.Client) error {
				st, err := c.RolloutStatus(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				spec, err := undoSpec(st, id, g.actor)
				if err != nil {
					return err
				}
				plan, err := c.PlanRollout(cmd.Context(), spec)
				if err != nil {
					return err
				}
				if err := c.StartRollout(cmd.Context(), spec); err != nil {
					return err
				}
				g.printf("rollout %s started (workflow %s), undoing %s: %s\n", spec.ID, contract.RolloutWorkflowID(spec.ID), args[0], rolloutPlanLine(spec, plan))
				if !wait {
					return nil
				}
				return g.followRollout(cmd, c, spec.ID)
			})
		},
	}
	cmd.Flags().StringVar(&id, "id", "", "the undoing rollout's ID (default: r-<random>)")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the undo until it completes, stops or is aborted")
	return cmd
}

// undoSpec is the rollout that re-pins each instance st deployed to the release it ran before.
func undoSpec(st *contract.RolloutStatus, id, actor string) (contract.RolloutSpec, error) {
	undone := st.Spec.ID
	switch {
	case !slices.Contains([]string{contract.PhaseCompleted, contract.PhaseStopped, contract.PhaseAborted}, st.Phase):
		return contract.RolloutSpec{}, usageErr("ID %s: the rollout is %s; abort it first (slipway rollout abort %s), then undo it", undone, st.Phase, undone)
	case st.Spec.To == "" && len(st.Spec.Pins) == 0:
		return contract.RolloutSpec{}, usageErr("ID %s: it changed parameters, not releases; roll the old values out with rollout start --set", undone)
	}
	pins := map[string]string{}
	for _, in := range st.Instances {
		changed := in.Status == contract.RolloutUpdated || in.Status == contract.RolloutFailed || in.Status == contract.RolloutRunning
		if rel := contract.PinnedRelease(in.Current); changed && rel != "" && in.Current != in.Desired {
			pins[in.Ref.String()] = rel
		}
	}
	if len(pins) == 0 {
		return contract.RolloutSpec{}, usageErr("ID %s: it re-pinned no instance from a release, so there is nothing to undo", undone)
	}
	spec := st.Spec
	spec.ID, spec.Actor, spec.To, spec.Pins, spec.Undoes, spec.AllowDowngrade = id, actor, "", pins, undone, true
	return spec, nil
}
