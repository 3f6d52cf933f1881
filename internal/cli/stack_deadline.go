package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

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
slipway's MR, a platform decision like a channel move. stack status shows the progress. See docs/time.md.`,
		Args: exactArgs(1, "the stack"),
		RunE: func(cmd *cobra.Command, args []string) error {
			stack := args[0]
			if !labelRE.MatchString(stack) {
				return usageErr("STACK %q: must be a lowercase label (a-z, 0-9, -)", stack)
			}
			if !config.IsVersion(minVersion) {
				return usageErr("--min %q: must be a release version MAJOR.MINOR.PATCH (semver, e.g. 1.5.0)", minVersion)
			}
			deadline, err := parseDeadline(by)
			if err != nil {
				return err
			}
			size, percent, err := parseBatch(batch)
			if err != nil {
				return err
			}
			e, err := loadPolicy(dir)
			if err != nil {
				return err
			}
			if api, err := g.api(); err != nil {
				return err
			} else if api != nil {
				return usageErr("--server: the stack commands talk to Temporal directly (not through slipway server yet)")
			}
			return g.withSignedClient(cmd, func(c *client.Client) error {
				rels, err := c.StackRequest(cmd.Context(), contract.StackRequest{Op: contract.StackOpReleases, Stack: stack})
				if err != nil {
					return err
				}
				if len(rels.Releases) == 0 {
					return usageErr("STACK %q: has no releases, so no deadline (an unknown stack has none; slipway stack release %s VERSION cuts one)", stack, stack)
				}
				if _, ok := (&config.Releases{Stack: stack, Releases: rels.Releases}).Find(minVersion); !ok {
					return usageErr("--min %s: not a release of stack %s (slipway stack releases %s lists them)", minVersion, stack, stack)
				}
				items, err := c.List(cmd.Context(), client.ListFilter{Stack: stack})
				if err != nil {
					return err
				}
				behind := behindOf(items, minVersion)
				if percent > 0 {
					size = (len(behind)*percent + 99) / 100
				}
				waves, missed := e.Windows().PlanWaves(stack, behind, size, time.Now(), deadline)
				if len(missed) > 0 {
					return &exitError{code: ExitFailed, msg: fmt.Sprintf("stack %s: every instance on %s by %s cannot be met inside the change windows: %d instance(s) would miss it: %s (their windows open too rarely before then; nothing recorded)",
						stack, minVersion, deadline.Format(time.RFC3339), len(missed), strings.Join(missed, ", "))}
				}
				d := contract.StackDeadline{Min: minVersion, By: deadline}
				for _, w := range waves {
					d.Waves = append(d.Waves, contract.DeadlineWave(w))
				}
				res, err := c.StackRequest(cmd.Context(), contract.StackRequest{Op: contract.StackOpDeadline, Stack: stack, Version: minVersion, Deadline: &d, ID: g.requestID})
				if err != nil {
					return err
				}
				ids, err := g.startWaves(cmd, c, stack, res.MergeSHA, d)
				if err != nil {
					return err
				}
				return g.output(out, d, func(w io.Writer) {
					fmt.Fprintf(w, "deadline: every %s instance on %s or newer by %s (merged %s); %d behind, in %d wave(s):\n",
						stack, minVersion, deadline.Format(time.RFC3339), shortSHA(res.MergeSHA), len(behind), len(d.Waves))
					writeWaves(w, d.Waves, ids)
				})
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

// parseDeadline reads --by: RFC 3339 or a date (its 00:00 UTC), in the future.
func parseDeadline(by string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, by)
	if err != nil {
		if t, err = time.Parse(time.DateOnly, by); err != nil {
			return t, usageErr("--by %q: must be RFC 3339 (2027-01-15T18:00:00Z) or a date (2027-01-15)", by)
		}
	}
	if !t.After(time.Now()) {
		return t, usageErr("--by %s: is not in the future", t.UTC().Format(time.RFC3339))
	}
	return t.UTC(), nil
}

// behindOf is the instances (TENANT/NAME) running a release older than minVersion, or main's head.
func behindOf(items []client.ListItem, minVersion string) []string {
	var out []string
	for _, it := range items {
		if v := releaseOf(it.Release); v == "" || config.OlderVersion(v, minVersion) {
			out = append(out, it.Tenant+"/"+it.Name)
		}
	}
	return out
}

// startWaves starts each wave as a rollout re-pinning its instances to the minimum (an undo's
// per-instance pins: instances already newer are never moved back), held by Temporal until the
// wave's opening. The IDs name the recording merge, so setting a deadline again starts new ones.
func (g *globals) startWaves(cmd *cobra.Command, c *client.Client, stack, merge string, d contract.StackDeadline) ([]string, error) {
	var ids []string
	for i, wv := range d.Waves {
		spec := contract.RolloutSpec{ID: contract.DeadlineWaveRollout(merge, i+1), Stack: stack, Tenant: wv.Tenant,
			Pins: map[string]string{}, BatchSize: len(wv.Instances), Order: contract.OrderName, MaxFailures: 1, Actor: g.actor}
		for _, ref := range wv.Instances {
			spec.Pins[ref] = d.Min
		}
		if err := c.StartRolloutAt(cmd.Context(), spec, wv.At); err != nil {
			return ids, fmt.Errorf("deadline recorded, but wave %d did not start (start it with slipway rollout start --stack %s --tenant %s --to %s): %w", i+1, stack, wv.Tenant, d.Min, err)
		}
		ids = append(ids, spec.ID)
	}
	return ids, nil
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
func writeDeadlines(w io.Writer, stack string, deadlines []contract.StackDeadline, items []client.ListItem, ws windows.Set, now time.Time) {
	for _, d := range deadlines {
		behind := behindOf(items, d.Min)
		if len(behind) == 0 {
			fmt.Fprintf(w, "deadline %s by %s: done, every instance runs it or newer\n", d.Min, d.By.Format(time.RFC3339))
			continue
		}
		size := (len(behind)*25 + 99) / 100
		if len(d.Waves) > 0 {
			size = len(slices.MaxFunc(d.Waves, func(a, b contract.DeadlineWave) int { return len(a.Instances) - len(b.Instances) }).Instances)
		}
		waves, missed := ws.PlanWaves(stack, behind, size, now, d.By)
		switch {
		case len(missed) > 0:
			fmt.Fprintf(w, "deadline %s by %s: %d behind; at risk: %s would miss it inside the change windows\n",
				d.Min, d.By.Format(time.RFC3339), len(behind), strings.Join(missed, ", "))
		default:
			fmt.Fprintf(w, "deadline %s by %s: %d behind; projected finish %s (last wave opens then); on track\n",
				d.Min, d.By.Format(time.RFC3339), len(behind), waves[len(waves)-1].At.Format(time.RFC3339))
		}
	}
}

// stackDeadlines reads the stack's deadlines and the windows (--dir) for stack status; without
// them (through --server, or the releases not readable by this actor) status shows the skew alone.
func (g *globals) stackDeadlines(cmd *cobra.Command, stack, dir string) ([]contract.StackDeadline, windows.Set) {
	if api, err := g.api(); err != nil || api != nil {
		return nil, nil
	}
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
