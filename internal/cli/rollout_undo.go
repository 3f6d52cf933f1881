package cli

import (
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
			api, err := g.api()
			if err != nil {
				return err
			}
			if api != nil {
				started, err := api.UndoRollout(cmd.Context(), args[0], id)
				if err != nil {
					return err
				}
				g.printf("rollout %s started (workflow %s), undoing %s: %s\n", id, contract.RolloutWorkflowID(id), args[0], rolloutPlanLine(started.Spec, started.Plan))
				if !wait {
					return nil
				}
				return g.withClient(cmd, func(c *client.Client) error { return g.followRollout(cmd, c, id) })
			}
			return g.withSignedClient(cmd, func(c *client.Client) error {
				st, err := c.RolloutStatus(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				spec, err := client.UndoSpec(st, id, g.actor)
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
