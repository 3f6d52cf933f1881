package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) approveCmd() *cobra.Command {
	var plan, reason string
	cmd := &cobra.Command{
		Use:   "approve TENANT/NAME --plan HASH [--reason TEXT]",
		Short: "Approve the plan an operation waits on; the approval names the plan's hash",
		Long: `An operation whose stack or instance asks for approval (approval: destructive or always) stops
at AwaitingApproval with its plan's summary and hash (slipway status shows both). Approving names
that hash: a plan made again after the approval voids it, and the new plan needs its own. Only the
approvers listed in approval.approvers may approve, when a list is set. Recorded with the actor.`,
		Args: exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if plan == "" {
				return usageErr("--plan is required: name the hash of the plan you approve (slipway status %s shows it)", args[0])
			}
			if err := approval.CheckHash(plan); err != nil {
				return usageErr("--plan: %v", err)
			}
			return g.sendApproval(cmd, args[0], contract.VerbApprove, contract.ApprovalRequest{Plan: plan, Reason: reason})
		},
	}
	cmd.Flags().StringVar(&plan, "plan", "", "the hash of the plan you approve (at least 7 of its first hex digits)")
	cmd.Flags().StringVar(&reason, "reason", "", "why; recorded with the actor")
	return cmd
}

func (g *globals) rejectCmd() *cobra.Command {
	var plan, reason string
	cmd := &cobra.Command{
		Use:   "reject TENANT/NAME --reason TEXT [--plan HASH]",
		Short: "Reject the plan an operation waits on; the operation ends with nothing applied",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(reason) == "" {
				return usageErr("--reason is required: a rejection is recorded with who rejected and why")
			}
			if plan != "" {
				if err := approval.CheckHash(plan); err != nil {
					return usageErr("--plan: %v", err)
				}
			}
			return g.sendApproval(cmd, args[0], contract.VerbReject, contract.ApprovalRequest{Plan: plan, Reason: reason})
		},
	}
	cmd.Flags().StringVar(&plan, "plan", "", "the hash of the plan you reject; refused if another plan waits")
	cmd.Flags().StringVar(&reason, "reason", "", "why (required)")
	return cmd
}

func (g *globals) sendApproval(cmd *cobra.Command, arg, verb string, req contract.ApprovalRequest) error {
	req.Actor, req.Source = g.actor, "cli"
	ref, err := parseRef(arg)
	if err != nil {
		return err
	}
	api, err := g.api()
	if err != nil {
		return err
	}
	if api != nil {
		res, err := api.Approval(cmd.Context(), ref, verb, req)
		if err != nil {
			return err
		}
		g.printf("%s: plan %s of %s %s %s\n", ref, shortSHA(res.Hash), res.Operation, res.OpID, contract.Past(verb))
		return nil
	}
	return g.withSignedClient(cmd, func(c *client.Client) error {
		res, err := c.Approval(cmd.Context(), ref, verb, req, "")
		if err != nil {
			return err
		}
		g.printf("%s: plan %s of %s %s %s by %s\n", ref, shortSHA(res.Hash), res.Operation, res.OpID, contract.Past(verb), g.actor)
		return nil
	})
}

// writeApproval shows what an operation waits on: the plan, its hash and how to approve it.
func writeApproval(w io.Writer, ref string, a *contract.ApprovalWait, now time.Time) {
	if a.Redacted {
		// The instance shows the plan only to who may approve it.
		fmt.Fprintf(w, "awaiting approval by %s, waiting %s, until %s\n", a.Awaited(), age(now, a.Since), a.Deadline.UTC().Format(time.RFC3339))
		if a.MR != nil {
			fmt.Fprintf(w, "  MR: %s %s\n", a.MR.ID, a.MR.URL)
		}
		return
	}
	if a.Required != nil {
		fmt.Fprintf(w, "awaiting approval by %s", a.Awaited())
		if n := len(a.Approvals); n > 0 {
			fmt.Fprintf(w, " (%d of %d given)", n, a.Required.Count)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "awaiting approval: plan %s, waiting %s, until %s\n", a.Hash, age(now, a.Since), a.Deadline.UTC().Format(time.RFC3339))
	fmt.Fprintf(w, "  plan: %s\n  why: %s\n", a.What, a.Why)
	if p := a.Plan; p != nil {
		for _, rc := range p.Resources {
			fmt.Fprintf(w, "    %s %s\n", strings.Join(rc.Actions, ","), rc.Address)
		}
	}
	if len(a.Approvers) > 0 {
		fmt.Fprintf(w, "  approvers: %s\n", strings.Join(a.Approvers, ", "))
	}
	if a.MR != nil {
		fmt.Fprintf(w, "  MR: %s %s (comment /slipway approve %s there)\n", a.MR.ID, a.MR.URL, shortSHA(a.Hash))
	}
	if a.Voids != "" {
		fmt.Fprintf(w, "  replaces plan %s: a plan made again after its approval needs its own\n", shortSHA(a.Voids))
	}
	fmt.Fprintf(w, "  slipway approve %s --plan %s  |  slipway reject %s --reason ...\n", ref, shortSHA(a.Hash), ref)
}
