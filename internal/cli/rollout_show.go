package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// rolloutPlanLine sums an action list up in one line.
func rolloutPlanLine(spec contract.RolloutSpec, plan contract.RolloutPlan) string {
	update, batches := 0, 0
	for _, a := range plan.Actions {
		if a.Action == contract.ActionUpdate {
			update++
			batches = max(batches, a.Batch)
		}
	}
	size := fmt.Sprintf("%d", spec.BatchSize)
	if spec.BatchPercent > 0 {
		size = fmt.Sprintf("%d%%", spec.BatchPercent)
	}
	return fmt.Sprintf("%d to update in %d batch(es) of %s, %d skipped", update, batches, size, len(plan.Actions)-update)
}

// writeRolloutPlan prints the action list: the updates batch by batch, then the skipped.
func writeRolloutPlan(out io.Writer, spec contract.RolloutSpec, plan contract.RolloutPlan) {
	fmt.Fprintf(out, "rollout plan of stack %s at main %s: %s\n", plan.Stack, shortSHA(plan.Head), rolloutPlanLine(spec, plan))
	if len(plan.Actions) == 0 {
		fmt.Fprintf(out, "no instance of stack %s is in scope\n", plan.Stack)
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BATCH\tINSTANCE\tSTATE\tCURRENT\tDESIRED\tNOTE")
	for _, skipped := range []bool{false, true} {
		for _, a := range plan.Actions {
			if (a.Action == contract.ActionSkip) != skipped {
				continue
			}
			batch := fmt.Sprintf("%d", a.Batch)
			note := a.Reason
			if skipped {
				batch, note = "-", "skip: "+a.Reason
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", batch, a.Ref, a.State, dash(a.Current), dash(a.Desired), dash(note))
		}
	}
	_ = tw.Flush()
}

// writeRolloutStatus prints a rollout: its phase and counts, then each instance.
func writeRolloutStatus(out io.Writer, st *contract.RolloutStatus) {
	fmt.Fprintf(out, "rollout %s of stack %s: %s\n", st.Spec.ID, st.Spec.Stack, rolloutLine(st))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BATCH\tINSTANCE\tSTATUS\tREADY\tDESIRED\tNOTE")
	for _, in := range st.Instances {
		batch := fmt.Sprintf("%d", in.Batch)
		if in.Batch == 0 {
			batch = "-"
		}
		note := in.Reason
		if in.Error != "" {
			note = in.Error
		}
		if a := in.Awaiting; a != nil && !a.Approved {
			note = "awaits approval of plan shape " + a.Fingerprint + "; " + note
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", batch, in.Ref, in.Status, dash(in.Ready), dash(in.Desired), dash(note))
	}
	_ = tw.Flush()
	writeRolloutGroups(out, st)
}

// writeRolloutGroups lists the plan shapes the rollout's deploys waited with, and which are approved.
func writeRolloutGroups(out io.Writer, st *contract.RolloutStatus) {
	if len(st.Groups) == 0 {
		return
	}
	fmt.Fprintln(out, "plan shapes waiting for approval (slipway rollout approve "+st.Spec.ID+" --fingerprint F):")
	for _, g := range st.Groups {
		state := "waiting"
		if g.ApprovedBy != nil {
			state = "approved by " + g.ApprovedBy.Name
		}
		fmt.Fprintf(out, "  %s  %d instance(s): %s  [%s]\n", g.Fingerprint, len(g.Refs), g.Summary, state)
	}
}

// rolloutLine is the rollout's phase, batch and ready/updated/total.
func rolloutLine(st *contract.RolloutStatus) string {
	l := fmt.Sprintf("%s, batch %d/%d, ready/updated/total %d/%d/%d", st.Phase, min(st.Batch, st.Batches), st.Batches,
		st.Ready, st.Updated, st.Total)
	if st.Failures > 0 {
		l += fmt.Sprintf(", %d failed", st.Failures)
	}
	if st.Reason != "" {
		l += "; " + st.Reason
	}
	return l
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (g *globals) rolloutStatusCmd() *cobra.Command {
	var out *outputFormat
	var follow bool
	cmd := &cobra.Command{
		Use:   "status ID [--follow]",
		Short: "Show a rollout: phase, batch, ready/updated/total and each instance",
		Args:  exactArgs(1, "the rollout ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if follow && out.value != formatText {
				return usageErr("--follow prints a line per change: leave out -o %s, or --follow for one %s status", out.value, out.value)
			}
			return g.withClient(cmd, func(c *client.Client) error {
				if follow {
					return g.followRollout(cmd, c, args[0])
				}
				st, err := c.RolloutStatus(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return g.output(out, st, func(w io.Writer) { writeRolloutStatus(w, st) })
			})
		},
	}
	cmd.Flags().BoolVar(&follow, "follow", false, "print each change until the rollout completes, stops or pauses")
	out = outputFlag(cmd)
	return cmd
}

// followRollout prints each instance as it ends and each batch's counts; exit 1 when stopped.
func (g *globals) followRollout(cmd *cobra.Command, c *client.Client, id string) error {
	seen, last := map[string]string{}, ""
	st, err := c.FollowRollout(cmd.Context(), id, func(st *contract.RolloutStatus) bool {
		for _, in := range st.Instances {
			if seen[in.Ref.String()] == in.Status {
				continue
			}
			seen[in.Ref.String()] = in.Status
			if in.Status == contract.RolloutUpdated || in.Status == contract.RolloutFailed {
				g.printf("  batch %d  %-24s %s %s\n", in.Batch, in.Ref, in.Status, in.Error)
			}
		}
		if line := rolloutLine(st); line != last {
			last = line
			g.printf("rollout %s: %s\n", id, line)
		}
		// A stop or pause settles once the deploys already sent have ended.
		return (st.Phase == contract.PhaseStopped || st.Phase == contract.PhasePaused) && st.InFlight == 0
	})
	if err != nil {
		return err
	}
	switch st.Phase {
	case contract.PhaseStopped:
		g.printf("rollout %s stopped: fix the failed instances, then `slipway rollout resume %s` (or abort)\n", id, id)
		return failed
	case contract.PhasePaused:
		g.printf("rollout %s is paused: `slipway rollout resume %s` goes on\n", id, id)
	}
	return nil
}

func (g *globals) rolloutListCmd() *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List rollouts with their stack and phase",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(cmd, func(c *client.Client) error {
				items, err := c.ListRollouts(cmd.Context())
				if err != nil {
					return err
				}
				if items == nil {
					items = []client.RolloutItem{}
				}
				return g.output(out, items, func(w io.Writer) {
					tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "ID\tSTACK\tPHASE\tRUNNING")
					for _, it := range items {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%t\n", it.ID, it.Stack, it.Phase, it.Running)
					}
					_ = tw.Flush()
				})
			})
		},
	}
	out = outputFlag(cmd)
	return cmd
}

func (g *globals) rolloutControlCmd(update, short string) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   update + " ID [--reason TEXT]",
		Short: short,
		Args:  exactArgs(1, "the rollout ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := contract.RolloutRequest{Actor: g.actor, Reason: reason}
			api, err := g.api()
			if err != nil {
				return err
			}
			if api != nil {
				st, err := api.ControlRollout(cmd.Context(), args[0], update, req)
				if err != nil {
					return err
				}
				g.printf("rollout %s: %s\n", args[0], rolloutLine(st))
				return nil
			}
			return g.withSignedClient(cmd, func(c *client.Client) error {
				st, err := c.ControlRollout(cmd.Context(), args[0], update, req)
				if err != nil {
					return err
				}
				g.printf("rollout %s: %s\n", args[0], rolloutLine(st))
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why; recorded with the actor")
	return cmd
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
