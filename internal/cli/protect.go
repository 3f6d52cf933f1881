package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) protectCmd() *cobra.Command {
	return g.protectionCmd(contract.UpdateProtect, "Protect an instance from deletion: destroy and deprovision are refused for everyone",
		`protect marks the instance protected: destroy and deprovision are refused, whoever sends them
(CLI, API, a webhook commit line, a rollout, expiry), platform admins included, until a platform
admin's slipway unprotect. protected: true in the instance file, or in the stack's schema.yaml,
does the same from the next provision or deploy. The change is a policy decision, audited.`)
}

func (g *globals) unprotectCmd() *cobra.Command {
	return g.protectionCmd(contract.UpdateUnprotect, "Lift an instance's deletion protection (platform admins; --reason required)",
		`unprotect lifts the instance's deletion protection, so it can be destroyed or deprovisioned. The
default policy allows it to platform admins only; the decision and its reason are in the audit
log. A later provision or deploy of a config that still says protected: true protects it again.`)
}

func (g *globals) protectionCmd(update, short, long string) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   update + " TENANT/NAME --reason TEXT",
		Short: short,
		Long:  long,
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if update == contract.UpdateUnprotect && strings.TrimSpace(reason) == "" {
				return usageErr("--reason is required: unprotect is recorded with who asked and why")
			}
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			req := contract.ProtectRequest{Actor: g.actor, Reason: reason}
			api, err := g.api()
			if err != nil {
				return err
			}
			var p *contract.Protection
			if api != nil {
				p, err = api.Protect(cmd.Context(), ref, update, req)
			} else {
				err = g.withSignedClient(cmd, func(c *client.Client) error {
					p, err = c.Protect(cmd.Context(), ref, update, req)
					return err
				})
			}
			if err != nil {
				return err
			}
			if p == nil {
				g.printf("%s: not protected; destroy and deprovision are allowed\n", ref)
				return nil
			}
			g.printf("%s: protected from deletion (by %s)\n", ref, p.Actor)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why; recorded with the actor in the audit log")
	return cmd
}

func (g *globals) extendCmd() *cobra.Command {
	var by time.Duration
	var reason string
	cmd := &cobra.Command{
		Use:   "extend TENANT/NAME --by DURATION",
		Short: "Move an instance's expiry on, within its stack's maximum (schema.expiry.max)",
		Long: `extend moves the end of an instance whose config sets expires (or expiresAt) on by --by. The new end
may be no more than the stack's expiry.max from now (exit 2 otherwise, naming the maximum). The
warnings are sent again before the new end. Who may is the policy's (operation extend); the
expiry's action then runs as the person who extended it last.`,
		Args: exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if by <= 0 {
				return usageErr("--by: a positive duration such as 48h is required")
			}
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			req := contract.ExtendRequest{By: by, Actor: g.actor, Reason: reason}
			api, err := g.api()
			if err != nil {
				return err
			}
			var x *contract.Expiry
			if api != nil {
				x, err = api.Extend(cmd.Context(), ref, req)
			} else {
				err = g.withSignedClient(cmd, func(c *client.Client) error {
					x, err = c.Extend(cmd.Context(), ref, req)
					return err
				})
			}
			if err != nil {
				return err
			}
			g.printf("%s: expires at %s, then %s\n", ref, x.At.UTC().Format(time.RFC3339), x.Action)
			return nil
		},
	}
	cmd.Flags().DurationVar(&by, "by", 0, "how much later it ends, such as 48h")
	cmd.Flags().StringVar(&reason, "reason", "", "why; recorded with the actor")
	return cmd
}
