package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/gates"
)

func (g *globals) gateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "gate",
		Short: "Scheduling gates: while an instance has one, its provisions and deploys wait (add, remove, list)",
		Long: `A gate holds every provision and deploy of the instance until it is removed, durably and
visibly: the state stays, the condition Scheduled=False names the gates, and the search attribute
InstanceGated lists gated instances. A manual gate is a label a person removes; the built-in gate
instance:TENANT/NAME clears itself when that instance is Ready. A gate may carry --timeout: a
waiting operation then fails as <Op>Failed, with nothing changed. slipway cancel ends a waiting one.`,
	}
	var timeout time.Duration
	var reason string
	add := g.gateUpdateCmd("add", contract.UpdateGateAdd, "Set a gate (recorded with the actor)", &timeout, &reason)
	add.Flags().DurationVar(&timeout, "timeout", 0, "fail a waiting operation when the gate has not cleared after this long")
	cmd.AddCommand(add, g.gateUpdateCmd("remove", contract.UpdateGateRemove, "Remove a gate; a waiting operation goes on at once when it was the last", nil, &reason), g.gateListCmd())
	return cmd
}

func (g *globals) gateUpdateCmd(verb, update, short string, timeout *time.Duration, reason *string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   verb + " TENANT/NAME GATE",
		Short: short,
		Args:  exactArgs(2, "TENANT/NAME and GATE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := gates.Check(args[1]); err != nil {
				return usageErr("%v", err)
			}
			req := contract.GateRequest{Name: args[1], Actor: g.actor, Reason: *reason}
			if timeout != nil {
				if err := gates.CheckTimeout(args[1], *timeout); err != nil {
					return usageErr("--timeout: %v", err)
				}
				req.Timeout = *timeout
			}
			ref, gs, err := g.gate(cmd, args[0], update, req)
			if err != nil {
				return err
			}
			g.printf("%s: gates: %s\n", ref, gateNames(gs))
			return nil
		},
	}
	cmd.Flags().StringVar(reason, "reason", "", "why; recorded with the actor")
	return cmd
}

func (g *globals) gateListCmd() *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "list TENANT/NAME",
		Short: "List an instance's gates and the operation waiting at them",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			st, err := g.status(cmd.Context(), ref, contract.StatusRequest{}, false)
			if err != nil {
				return err
			}
			return g.output(out, st.Gates, func(w io.Writer) { writeGates(w, st, time.Now()) })
		},
	}
	out = outputFlag(cmd)
	return cmd
}

func (g *globals) cancelCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "cancel TENANT/NAME [--reason TEXT]",
		Short: "Stop the running provision or deploy at a safe point, or end one waiting at the scheduling gates",
		Long: `cancel stops the instance's running provision or deploy at a safe point: terraform is interrupted
and saves its state, an ArgoCD sync in flight is terminated, and what was merged is recorded. The
instance goes to <Op>Failed with leftovers naming where it stopped, or back to its last good state
when nothing was changed yet. An operation waiting at the scheduling gates just ends.`,
		Args: exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, _, err := g.gate(cmd, args[0], contract.UpdateCancel, contract.GateRequest{Actor: g.actor, Reason: reason})
			if err != nil {
				return err
			}
			st, err := g.status(cmd.Context(), ref, contract.StatusRequest{}, false)
			if op := st.Operation; err == nil && op != nil && op.Cancel != nil && op.Cancel.For == "" {
				g.printf("%s: stopping %s %s at a safe point (step %s); slipway status %s shows where it stopped\n",
					ref, op.Kind, op.ID, op.Step, ref)
				return nil
			}
			g.printf("%s: the waiting operation was cancelled; nothing was changed\n", ref)
			return nil
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why; recorded with the actor")
	return cmd
}

// gate sends gate-add, gate-remove or cancel: through the server with --server, else on Temporal.
func (g *globals) gate(cmd *cobra.Command, arg, update string, req contract.GateRequest) (contract.Ref, []contract.Gate, error) {
	ref, err := parseRef(arg)
	if err != nil {
		return ref, nil, err
	}
	api, err := g.api()
	if err != nil {
		return ref, nil, err
	}
	if api != nil {
		gs, err := api.Gate(cmd.Context(), ref, update, req)
		return ref, gs, err
	}
	var gs []contract.Gate
	err = g.withSignedClient(cmd, func(c *client.Client) error {
		gs, err = c.Gate(cmd.Context(), ref, update, req)
		return err
	})
	return ref, gs, err
}

func gateNames(gs []contract.Gate) string { return client.GateNames(gs) }

// writeGates prints the gates and how long an operation has waited at them.
func writeGates(w io.Writer, st *contract.Status, now time.Time) {
	if wt := st.Waiting; wt != nil && wt.Window != nil {
		fmt.Fprintf(w, "%s waiting for the change window opening at %s (since %s; slipway cancel %s ends it)\n", wt.Operation,
			wt.Window.UTC().Format(time.RFC3339), wt.Since.UTC().Format(time.RFC3339), st.Name)
		if len(st.Gates) == 0 {
			return
		}
	} else if wt != nil {
		fmt.Fprintf(w, "%s waiting since %s (%s)\n", wt.Operation, wt.Since.UTC().Format(time.RFC3339), now.Sub(wt.Since).Round(time.Second))
	}
	if len(st.Gates) == 0 {
		fmt.Fprintf(w, "%s has no scheduling gates\n", st.Name)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GATE\tTIMEOUT\tSOURCE\tBY\tADDED\tNOTE")
	for _, gt := range st.Gates {
		to := "-"
		if gt.Timeout > 0 {
			to = gt.Timeout.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", gt.Name, to, gt.Source, dash(gt.Actor), gt.AddedAt.UTC().Format(time.RFC3339), dash(gt.Note))
	}
	_ = tw.Flush()
}
