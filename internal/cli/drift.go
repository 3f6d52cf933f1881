package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) driftCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drift",
		Short: "Find instances whose infrastructure or app moved away from their deployed config (schedule, check, list, unschedule)",
		Long: `A drift check plans an instance's deployed revision against the refreshed terraform state and
asks the deployer whether the app is in sync. It never applies, and it runs only while the
instance holds no operation (a busy instance is skipped and checked next time). Drift sets the
condition Drifted=True with the changed resources and the search attribute InstanceDrifted; the
next deploy clears it. --remediate deploy sends a drifted instance a normal deploy.`,
	}
	cmd.AddCommand(g.driftScheduleCmd(), g.driftCheckCmd(), g.driftListCmd(), g.driftUnscheduleCmd())
	return cmd
}

// drifter is what the drift commands send: to Temporal, or through the server with --server.
type drifter interface {
	ScheduleDrift(ctx context.Context, id string, every time.Duration, scope contract.DriftScope) error
	Unschedule(ctx context.Context, id string) error
	SweepDrift(ctx context.Context, scope contract.DriftScope) (contract.DriftSweepResult, error)
}

// withDrift runs fn with the server's client when --server is set, else with a Temporal client.
func (g *globals) withDrift(cmd *cobra.Command, fn func(drifter) error) error {
	api, err := g.api()
	if err != nil {
		return err
	}
	if api != nil {
		return fn(api)
	}
	return g.withSignedClient(cmd, func(c *client.Client) error { return fn(c) })
}

// driftScope are the flags that pick instances and the policy.
type driftScope struct {
	stack, tenant, remediate string
	concurrency              int
}

func (f *driftScope) add(cmd *cobra.Command, policy bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.stack, "stack", "", "only instances of this stack")
	fl.StringVar(&f.tenant, "tenant", "", "only this tenant's instances")
	if policy {
		fl.StringVar(&f.remediate, "remediate", "", "what to do about drift: nothing (default) or deploy")
		fl.IntVar(&f.concurrency, "concurrency", 4, "checks at once (each is a terraform plan)")
	}
}

func (f *driftScope) scope() (contract.DriftScope, error) {
	s := contract.DriftScope{Stack: f.stack, Tenant: f.tenant, Remediate: f.remediate, Concurrency: f.concurrency}
	switch {
	case f.stack != "" && !labelRE.MatchString(f.stack):
		return s, usageErr("--stack %q: must be a lowercase label (a-z, 0-9, -)", f.stack)
	case f.tenant != "" && !labelRE.MatchString(f.tenant):
		return s, usageErr("--tenant %q: must be a lowercase label (a-z, 0-9, -)", f.tenant)
	case f.remediate != "" && f.remediate != contract.RemediateDeploy:
		return s, usageErr("--remediate %q: must be deploy, or left out to only report", f.remediate)
	case f.concurrency < 1 || f.concurrency > contract.MaxDriftConcurrency:
		return s, usageErr("--concurrency: must be 1 to %d, got %d", contract.MaxDriftConcurrency, f.concurrency)
	}
	return s, nil
}

func (g *globals) driftScheduleCmd() *cobra.Command {
	var f driftScope
	var every time.Duration
	var id string
	cmd := &cobra.Command{
		Use:   "schedule --every DURATION [--stack S] [--tenant T] [--remediate deploy] [--concurrency N] [--id ID]",
		Short: "Create a Temporal Schedule that checks for drift every DURATION (overlap: skip)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := f.scope()
			if err != nil {
				return err
			}
			switch {
			case every < client.MinDriftInterval:
				return usageErr("--every %s: must be at least %s (each run plans every instance in scope)", every, client.MinDriftInterval)
			case id == "":
				id = strings.Trim(strings.Join([]string{"all", f.stack, f.tenant}, "-"), "-")
			case !labelRE.MatchString(id):
				return usageErr("--id %q: must be a lowercase label (a-z, 0-9, -)", id)
			}
			return g.withDrift(cmd, func(d drifter) error {
				if err := d.ScheduleDrift(cmd.Context(), id, every, scope); err != nil {
					return err
				}
				g.printf("schedule %s: %s every %s (overlapping runs are skipped); see it in the UI's Schedules\n",
					client.DriftScheduleID(id), client.DriftSummary(scope), every)
				return nil
			})
		},
	}
	f.add(cmd, true)
	cmd.Flags().DurationVar(&every, "every", 6*time.Hour, "how often to check")
	cmd.Flags().StringVar(&id, "id", "", "the schedule's ID (default: from the scope, e.g. all or example-acme)")
	return cmd
}

func (g *globals) driftUnscheduleCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "unschedule ID",
		Short: "Delete a drift schedule; a check already running finishes",
		Args:  exactArgs(1, "the schedule ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withDrift(cmd, func(d drifter) error {
				if err := d.Unschedule(cmd.Context(), args[0]); err != nil {
					return err
				}
				g.printf("schedule %s deleted\n", client.DriftScheduleID(args[0]))
				return nil
			})
		},
	}
}

func (g *globals) driftCheckCmd() *cobra.Command {
	var f driftScope
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "check [--stack S] [--tenant T] [--remediate deploy] [--concurrency N]",
		Short: "Check every Deployed instance in scope now and print what each check found",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := f.scope()
			if err != nil {
				return err
			}
			return g.withDrift(cmd, func(d drifter) error {
				res, err := d.SweepDrift(cmd.Context(), scope)
				if err != nil {
					return err
				}
				return g.output(out, res, func(w io.Writer) { writeDriftSweep(w, res) })
			})
		},
	}
	f.add(cmd, true)
	out = outputFlag(cmd)
	return cmd
}

func (g *globals) driftListCmd() *cobra.Command {
	var f driftScope
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "list [--stack S] [--tenant T]",
		Short: "List the instances whose last drift check found drift, with the changed resources",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.concurrency = 1
			if _, err := f.scope(); err != nil {
				return err
			}
			return g.withReader(cmd, func(c reader) error {
				items, err := c.Drifted(cmd.Context(), client.ListFilter{Stack: f.stack, Tenant: f.tenant})
				if err != nil {
					return err
				}
				return g.output(out, items, func(w io.Writer) { writeDriftList(w, items, time.Local) })
			})
		},
	}
	f.add(cmd, false)
	out = outputFlag(cmd)
	return cmd
}

// writeDriftList prints each drifted instance and its changed resources, one per line.
func writeDriftList(out io.Writer, items []client.DriftItem, loc *time.Location) {
	if len(items) == 0 {
		fmt.Fprintln(out, "no drifted instances")
		return
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tSTACK\tCHECKED\tREVISION\tCHANGED")
	for _, it := range items {
		first := "-"
		if len(it.Resources) > 0 {
			first = it.Resources[0]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", it.Ref, dash(it.Stack), it.CheckedAt.In(loc).Format(time.DateTime), shortSHA(it.Revision), first)
		for _, r := range it.Resources[min(1, len(it.Resources)):] {
			fmt.Fprintf(tw, "\t\t\t\t%s\n", r)
		}
	}
	_ = tw.Flush()
}

// writeDriftSweep prints a sweep's outcome per instance and the totals.
func writeDriftSweep(out io.Writer, res contract.DriftSweepResult) {
	for _, o := range res.Instances {
		line := fmt.Sprintf("%-24s %s", o.Ref, o.Outcome)
		if len(o.Resources) > 0 {
			line += ": " + strings.Join(o.Resources, "; ")
		}
		if o.Message != "" {
			line += " (" + o.Message + ")"
		}
		fmt.Fprintln(out, line)
	}
	fmt.Fprintf(out, "%d checked, %d drifted\n", res.Checked, res.Drifted)
}
