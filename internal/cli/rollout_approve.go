package cli

import (
	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// rolloutApproveCmd approves one plan shape of a rollout: every deploy of it waiting with that
// fingerprint goes ahead, approved on the approver's behalf; the others keep waiting.
func (g *globals) rolloutApproveCmd() *cobra.Command {
	var fp, reason string
	cmd := &cobra.Command{
		Use:   "approve ID --fingerprint F [--reason TEXT]",
		Short: "Approve one plan shape (fingerprint) for every deploy of the rollout whose plan has it",
		Args:  exactArgs(1, "the rollout ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := contract.RolloutApproveRequest{Fingerprint: fp, Actor: g.actor, Reason: reason}
			api, err := g.api()
			if err != nil {
				return err
			}
			if api != nil {
				st, err := api.ControlRollout(cmd.Context(), args[0], contract.UpdateRolloutApprove, req)
				if err != nil {
					return err
				}
				g.printf("rollout %s: plan shape %s approved; %s\n", args[0], fp, rolloutLine(st))
				return nil
			}
			return g.withSignedClient(cmd, func(c *client.Client) error {
				st, err := c.ControlRollout(cmd.Context(), args[0], contract.UpdateRolloutApprove, req)
				if err != nil {
					return err
				}
				g.printf("rollout %s: plan shape %s approved; %s\n", args[0], fp, rolloutLine(st))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&fp, "fingerprint", "", "the plan shape's fingerprint, as rollout status or stack preview shows it")
	cmd.Flags().StringVar(&reason, "reason", "", "why; recorded with the approver in the audit")
	_ = cmd.MarkFlagRequired("fingerprint")
	return cmd
}
