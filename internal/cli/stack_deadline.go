package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/windows"
)

func (g *globals) stackDeadlineCmd() *cobra.Command {
	var minVersion, by, batch, dir string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "deadline STACK --min VERSION --by TIME [--batch N|P%] [--dir DIR]",
		Short: "Set an upgrade deadline: plan the waves of the instances below --min inside their change windows, refuse a deadline they cannot meet, record it",
		Long: `Every instance of STACK on release --min or newer by --by (RFC 3339, or a date: its 00:00 UTC).
The instances below --min are planned into waves of --batch (as a rollout's batches) of one tenant
each, one wave per opening of the change windows covering that tenant and the stack (the policy
bundle's, --dir, default SLIPWAY_POLICY_DIR); a tenant no window covers starts at once. When a wave
would open only at or after --by, nothing is recorded and the instances that would miss it are named
(exit 1). Otherwise the deadline and its waves are recorded in the stack's releases file through
slipway's MR, a platform decision like a channel move. stack status shows the progress. With
--server, slipway server decides it on the signed-in person and plans the waves inside its own
bundle's windows (the workers'; --dir is refused). See docs/time.md.`,
		Args: exactArgs(1, "the stack"),
		RunE: func(cmd *cobra.Command, args []string) error {
			stack := args[0]
			if !labelRE.MatchString(stack) {
				return usageErr("STACK %q: must be a lowercase label (a-z, 0-9, -)", stack)
			}
			if !config.IsVersion(minVersion) {
				return usageErr("--min %q: must be a release version MAJOR.MINOR.PATCH (semver, e.g. 1.5.0)", minVersion)
			}
			deadline, err := client.ParseBy(by, time.Now())
			if err != nil {
				return usageErr("--by %v", err)
			}
			size, percent, err := parseBatch(batch)
			if err != nil {
				return err
			}
			api, err := g.api()
			if err != nil {
				return err
			}
			var set client.DeadlineSet
			if api != nil {
				if cmd.Flags().Changed("dir") {
					return usageErr("--dir: through --server the server plans the waves inside its own policy bundle's windows (the workers'); leave --dir out")
				}
				set, err = api.SetDeadline(cmd.Context(), stack, apiserver.DeadlineBody{Min: minVersion, By: deadline.Format(time.RFC3339),
					BatchSize: size, BatchPercent: percent, ID: g.requestID})
			} else {
				e, lerr := loadPolicy(dir)
				if lerr != nil {
					return lerr
				}
				err = g.withSignedClient(cmd, func(c *client.Client) error {
					set, err = c.SetDeadline(cmd.Context(), e.Windows(), stack, contract.StackDeadline{Min: minVersion, By: deadline}, size, percent, g.requestID, g.actor)
					var bad *client.DeadlineInputError
					if errors.As(err, &bad) {
						return usageErr("%s %s", map[string]string{"stack": "STACK", "min": "--min"}[bad.Field], bad.Problem)
					}
					return err
				})
			}
			if err != nil {
				return err
			}
			d := set.Deadline
			return g.output(out, d, func(w io.Writer) {
				fmt.Fprintf(w, "deadline: every %s instance on %s or newer by %s (merged %s); %d behind, in %d wave(s):\n",
					stack, minVersion, deadline.Format(time.RFC3339), shortSHA(set.MergeSHA), set.Behind, len(d.Waves))
				writeWaves(w, d.Waves, set.Rollouts)
			})
		},
	}
	cmd.Flags().StringVar(&minVersion, "min", "", "the oldest release every instance must run (required)")
	cmd.Flags().StringVar(&by, "by", "", "when: RFC 3339, or a date (2027-01-15: its 00:00 UTC) (required)")
	cmd.Flags().StringVar(&batch, "batch", "25%", "wave size: N instances, or P% of those behind (as a rollout's --batch)")
	policyDirFlag(cmd, &dir)
	out = outputFlag(cmd)
	return cmd
}

func writeWaves(w io.Writer, waves []contract.DeadlineWave, rollouts []string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WAVE\tOPENS\tTENANT\tINSTANCES\tROLLOUT")
	for i, wv := range waves {
		id := "-"
		if i < len(rollouts) {
			id = rollouts[i]
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, wv.At.Format(time.RFC3339), wv.Tenant, strings.Join(wv.Instances, ", "), id)
	}
	_ = tw.Flush()
}

// writeDeadlines says, for each deadline, how many instances are behind, when their waves (planned
// again from now, of the size recorded, inside the windows) would finish, and whether in time.
func writeDeadlines(w io.Writer, progress []client.DeadlineStatus) {
	for _, d := range progress {
		switch {
		case d.Behind == 0:
			fmt.Fprintf(w, "deadline %s by %s: done, every instance runs it or newer\n", d.Min, d.By.Format(time.RFC3339))
		case len(d.AtRisk) > 0:
			fmt.Fprintf(w, "deadline %s by %s: %d behind; at risk: %s would miss it inside the change windows\n",
				d.Min, d.By.Format(time.RFC3339), d.Behind, strings.Join(d.AtRisk, ", "))
		default:
			fmt.Fprintf(w, "deadline %s by %s: %d behind; projected finish %s (last wave opens then); on track\n",
				d.Min, d.By.Format(time.RFC3339), d.Behind, d.Finish.Format(time.RFC3339))
		}
	}
}

// stackDeadlines reads the stack's deadlines and the windows (--dir) for stack status; without
// them (the releases not readable by this actor) status shows the skew alone.
func (g *globals) stackDeadlines(cmd *cobra.Command, stack, dir string) ([]contract.StackDeadline, windows.Set) {
	e, err := loadPolicy(dir)
	if err != nil {
		fmt.Fprintf(g.streams.Err, "deadlines not shown: %v\n", err)
		return nil, nil
	}
	var res contract.StackResult
	if err := g.withSignedClient(cmd, func(c *client.Client) error {
		res, err = c.StackRequest(cmd.Context(), contract.StackRequest{Op: contract.StackOpReleases, Stack: stack})
		return err
	}); err != nil {
		fmt.Fprintf(g.streams.Err, "deadlines not shown: %v\n", err)
		return nil, nil
	}
	return res.Deadlines, e.Windows()
}
