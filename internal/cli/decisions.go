package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func (g *globals) decisionCmd(name, short string) *cobra.Command {
	var reason, to, lockID string
	var wait, skipHook, acceptRender bool
	d, _ := lifecycle.ParseDecision(name)
	cmd := &cobra.Command{
		Use:   name + " TENANT/NAME",
		Short: short,
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			req := contract.DecisionRequest{Actor: g.actor, Reason: reason, ForceUnlock: lockID, SkipHook: skipHook, AcceptRender: acceptRender}
			if acceptRender && (to != "" || lockID != "" || skipHook) {
				return usageErr("--accept-render resumes the failed operation; it goes with neither --to, --force-unlock nor --skip-hook")
			}
			if skipHook && (to != "" || lockID != "") {
				return usageErr("--skip-hook resumes the failed operation past its hook; it goes with neither --to nor --force-unlock")
			}
			if cmd.Flags().Changed("force-unlock") && lockID == "" {
				return usageErr("--force-unlock: needs the lock ID from the terraform-lock leftover (slipway status %s)", args[0])
			}
			if lockID != "" && to != "" {
				return usageErr("--force-unlock resumes the failed operation; it does not go with --to")
			}
			if to != "" {
				st, ok := lifecycle.ParseState(to)
				if !ok {
					return usageErr("--to: %q is not a state name", to)
				}
				req.To = st
			}
			follow := wait || d != lifecycle.DecisionRetry || lockID != "" || skipHook || acceptRender
			api, err := g.api()
			if err != nil {
				return err
			}
			if api != nil {
				acc, err := api.Decide(cmd.Context(), ref, d, req, g.requestID)
				if err != nil {
					return err
				}
				g.printf("accepted: %s of %s (request %s)\n", d, ref, acc.RequestID)
				if !follow {
					return nil
				}
				return g.followAPI(cmd.Context(), api, ref, acc.RequestID)
			}
			c, err := g.dialSigned(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			h, err := g.accepting(cmd.Context(), func(ctx context.Context) (*client.Handle, error) {
				return c.Decide(ctx, ref, d, req, g.requestID)
			})
			if err != nil {
				return err
			}
			g.printf("accepted: %s of %s (request %s)\n", d, ref, h.RequestID)
			if !follow {
				return nil
			}
			return g.follow(cmd.Context(), c, h)
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why; required for resolve and abandon, recorded with the decision")
	if d == lifecycle.DecisionResolve {
		cmd.Flags().StringVar(&to, "to", "", "state things were left in: the last good state (default) or the one the operation would have reached")
		cmd.Flags().BoolVar(&skipHook, "skip-hook", false, "go on past the failed drain or post-deploy hook without running it, then resume like retry (recorded)")
		cmd.Flags().BoolVar(&acceptRender, "accept-render", false, "after verify-render failed: record the reviewed files on main at the revision that failed as rendered, then resume like retry (recorded)")
		cmd.Flags().StringVar(&lockID, "force-unlock", "", "force the stuck terraform state lock with this ID (a terraform-lock leftover) once its holder is gone, then resume like retry")
	}
	if d == lifecycle.DecisionRetry {
		cmd.Flags().BoolVar(&wait, "wait", false, "show live step progress and end with the final state")
	}
	return cmd
}
