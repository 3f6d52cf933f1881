package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/labels"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

func (g *globals) statusCmd() *cobra.Command {
	var refresh bool
	var out *outputFormat
	var req contract.StatusRequest
	cmd := &cobra.Command{
		Use:   "status TENANT/NAME",
		Short: "Show an instance's state, last operation, failure and leftovers, and resources (EMCO shape)",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			if !isDetail(req.Output) {
				return usageErr("--detail: %q is not one of summary, all, detail, rsync", req.Output)
			}
			st, err := g.status(cmd.Context(), ref, req, refresh)
			if err != nil {
				return err
			}
			return g.output(out, st, func(io.Writer) { g.printStatus(st) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Output, "detail", contract.OutputSummary, "how much to show (EMCO's summary, all, detail or rsync): all adds the logs, detail each resource's live metadata, spec and status, rsync what was rendered for each (metadata and spec)")
	f.StringVar(&req.App, "app", "", "only resources of this app")
	f.StringVar(&req.Cluster, "cluster", "", "only resources on this cluster")
	f.StringVar(&req.Resource, "resource", "", "only the resource with this name")
	f.BoolVar(&refresh, "refresh", false, "observe the app now (read-only) before showing the status")
	out = outputFlag(cmd)
	// -o used to take EMCO's summary|all|detail: scripts that say so still get it, told on stderr
	// (stdout is what they parse).
	out.legacy = func(s string) bool {
		if !isDetail(s) {
			return false
		}
		req.Output = s
		fmt.Fprintf(g.streams.Err, "warning: -o %s is deprecated: use --detail %s (-o now picks the format: text, json, yaml)\n", s, s)
		return true
	}
	return cmd
}

func isDetail(s string) bool { return contract.ValidOutput(s) }

// status reads the status, after a refresh with refresh: through the server with --server (the
// query then carries the person's attestation, and shows what they may see), else on Temporal.
func (g *globals) status(ctx context.Context, ref contract.Ref, req contract.StatusRequest, refresh bool) (*contract.Status, error) {
	api, err := g.api()
	if err != nil {
		return nil, err
	}
	type reader interface {
		Refresh(ctx context.Context, ref contract.Ref) (*contract.Status, error)
		Status(ctx context.Context, ref contract.Ref, req contract.StatusRequest) (*contract.Status, error)
	}
	var r reader = api
	if api == nil {
		dial := g.dial
		if refresh {
			dial = g.dialSigned // the refresh is an update
		}
		c, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		r = c
	}
	note := ""
	if refresh {
		rs, err := r.Refresh(ctx, ref)
		if err != nil {
			return nil, err
		}
		note = rs.Refresh
	}
	st, err := r.Status(ctx, ref, req)
	if err != nil {
		return nil, err
	}
	st.Refresh = note
	return st, nil
}

func (g *globals) printStatus(st *contract.Status) {
	g.printf("%s: %s", st.Name, st.State)
	if st.Stack != "" {
		g.printf(" (stack %s)", st.Stack)
	}
	g.printf("\n")
	if n := st.Names; n != nil {
		g.printf("names: namespace %s, application %s, schema %s\n", n.Namespace, n.Application, n.Schema)
	}
	if st.Revision != "" {
		g.printf("revision: %s\n", st.Revision)
	}
	if st.Deployer != "" {
		g.printf("deployer: %s\n", st.Deployer)
	}
	printOutputs(g, st.Outputs)
	if st.ControlPlane != "" {
		g.printf("controlPlane: %s (its pipelines run on that worker pool only)\n", st.ControlPlane)
	}
	if len(st.Dependencies) > 0 {
		g.printf("dependencies: %s (it waits for each to be Ready and takes their outputs)\n", strings.Join(st.Dependencies, ", "))
	}
	if x := st.Expiry; x != nil {
		g.printf("expires: %s (in %s): then %s, as %s; slipway extend %s --by DURATION moves it\n",
			x.At.UTC().Format(time.RFC3339), time.Until(x.At).Round(time.Second), x.Action, x.Actor, st.Name)
	}
	if len(st.Labels) > 0 {
		g.printf("labels: %s\n", labels.String(st.Labels))
	}
	if p := st.Protection; p != nil {
		g.printf("protected: since %s, by %s (%s); destroy and deprovision are refused until slipway unprotect\n",
			p.At.UTC().Format(time.RFC3339), p.Actor, p.Reason)
	}
	if len(st.Gates) > 0 || st.Waiting != nil {
		writeGates(g.streams.Out, st, time.Now())
	}
	if w := st.Approval; w != nil {
		writeApproval(g.streams.Out, st.Name, w, time.Now())
	}
	if st.Rollout != "" {
		g.printf("rollout: %s (the last rollout that deployed it: slipway rollout status %s)\n", st.Rollout, strings.TrimPrefix(st.Rollout, "rollout/"))
	}
	now := time.Now()
	if !st.ObservedAt.IsZero() {
		g.printf("observedAt: %s (%s ago)", st.ObservedAt.UTC().Format(time.RFC3339), age(now, st.ObservedAt))
		if o := st.Observed; o != nil && o.Observer != "" {
			g.printf(" by %s", o.Observer)
		}
		g.printf("\n")
	}
	if st.ObserverError != "" {
		g.printf("observer: %s\n", st.ObserverError)
	}
	if st.Refresh != "" {
		g.printf("refresh: %s\n", st.Refresh)
	}
	for _, c := range st.Conditions {
		g.printf("condition %s=%s %s %s", c.Type, c.Status, c.Reason, c.Message)
		if !c.ObservedAt.IsZero() {
			g.printf(" (observedAt %s, %s ago)", c.ObservedAt.UTC().Format(time.RFC3339), age(now, c.ObservedAt))
		}
		g.printf("\n")
	}
	for _, ev := range st.Observations {
		g.printf("observed %s: Running %s -> %s/%s, Ready %s -> %s\n", ev.At.UTC().Format(time.RFC3339), ev.FromRunning,
			ev.Running.Status, ev.Running.Reason, ev.FromReady, ev.ToReady)
	}
	if op := st.Operation; op != nil {
		g.printf("operation: %s %s %s (attempt %d)", op.Kind, op.ID, op.Result, op.Attempt)
		if op.Step != "" {
			g.printf(" step %s", op.Step)
		}
		g.printf("\n")
		if op.Stalled != "" {
			g.printf("stalled: %s\n", op.Stalled)
		}
		g.printSteps(st, map[string]bool{})
		printDataLoss(g, op.Plan)
	}
	if f := st.Failure; f != nil {
		g.printf("failure: step %s: %s\n", f.Step, f.Error)
		printLeftovers(g, f.Leftovers)
	}
	if len(st.RsyncStatus) > 0 {
		g.printf("rsync-status: %s\n", counts(st.RsyncStatus))
	}
	if len(st.ClusterStatus) > 0 {
		g.printf("cluster-status: %s\n", counts(st.ClusterStatus))
	}
	if st.ResourcesError != "" {
		g.printf("resources: the deployer could not be asked for each object: %s\n", st.ResourcesError)
	}
	printResources(g, st.Resources)
	if len(st.Allowed) > 0 {
		ops := make([]string, len(st.Allowed))
		for i, op := range st.Allowed {
			ops[i] = string(op)
		}
		g.printf("allowed: %s\n", strings.Join(ops, ", "))
	}
}

// printResources writes the resources grouped by app, then cluster (EMCO), each with its
// statuses and, when the status carries them, its object's metadata, spec and status.
func printResources(g *globals, apps []contract.AppResources) {
	for _, app := range apps {
		g.printf("app %s:\n", app.App)
		for _, cl := range app.Clusters {
			g.printf("  cluster %s:\n", dash(cl.Name))
			for _, r := range cl.Resources {
				line := strings.Join(slices.DeleteFunc([]string{r.GVK.Kind + "/" + r.Name, r.RsyncStatus, r.ClusterStatus, r.Health},
					func(s string) bool { return s == "" }), " ")
				g.printf("    %s\n", line)
				for _, part := range []struct {
					name string
					raw  []byte
				}{{"metadata", r.Metadata}, {"spec", r.Spec}, {"status", r.Status}} {
					if len(part.raw) > 0 {
						g.printf("      %s: %s\n", part.name, part.raw)
					}
				}
			}
		}
	}
}

// printOutputs writes the terraform outputs of the last apply, by name; sensitive ones are
// "[sensitive]" already: their values never left the worker.
func printOutputs(g *globals, outputs map[string]string) {
	if len(outputs) == 0 {
		return
	}
	g.printf("outputs:\n")
	for _, n := range slices.Sorted(maps.Keys(outputs)) {
		g.printf("  %s = %s\n", n, strconv.Quote(outputs[n]))
	}
}

// age is how long ago t was, to the second.
func age(now, t time.Time) time.Duration {
	return now.Sub(t).Round(time.Second)
}

func counts(m map[string]int) string {
	var parts []string
	for _, k := range []string{"Pending", "Applied", "Failed", "Retrying", "Terminated", "Unknown", "NotPresent", "Present"} {
		if n, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", k, n))
		}
	}
	return strings.Join(parts, " ")
}

func (g *globals) listCmd() *cobra.Command {
	var f client.ListFilter
	var out *outputFormat
	var countsOnly bool
	var expiring time.Duration
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List instances (the same search-attribute query works in the Temporal UI)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.State != "" {
				if _, ok := lifecycle.ParseState(f.State); !ok {
					return usageErr("--state: %q is not a state name", f.State)
				}
			}
			if f.Ready != "" && f.Ready != "True" && f.Ready != "False" && f.Ready != "Unknown" {
				return usageErr("--ready: %q is not one of True, False, Unknown", f.Ready)
			}
			if f.Tenant != "" && strings.ContainsAny(f.Tenant, "'\"\\ ") {
				return usageErr("--tenant: %q is not a tenant name", f.Tenant)
			}
			if f.Stack != "" && !labelRE.MatchString(f.Stack) {
				return usageErr("--stack: %q is not a stack name", f.Stack)
			}
			if f.Drifted != "" && f.Drifted != "True" && f.Drifted != "False" {
				return usageErr("--drifted: %q is not one of True, False", f.Drifted)
			}
			if expiring < 0 {
				return usageErr("--expiring: %s must not be negative", expiring)
			}
			if expiring > 0 {
				f.ExpiringBefore = time.Now().Add(expiring)
			}
			if countsOnly && f.Stack == "" {
				return usageErr("--counts: needs --stack (the stack whose instances to count)")
			}
			return g.withReader(cmd, func(c reader) error {
				var counts []client.StackCount
				if f.Stack != "" {
					var known bool
					var err error
					if counts, known, err = c.StackCounts(cmd.Context(), f.Stack, f.Tenant); err != nil {
						return err
					}
					if !known {
						return usageErr("--stack: no instance has ever had stack %q%s", f.Stack, forTenant(f.Tenant))
					}
				}
				if countsOnly {
					return g.output(out, counts, func(w io.Writer) { writeStackCounts(w, counts) })
				}
				items, err := c.List(cmd.Context(), f)
				if err != nil {
					return err
				}
				if items == nil {
					items = []client.ListItem{}
				}
				return g.output(out, items, func(w io.Writer) {
					writeList(w, items)
					if len(counts) > 0 {
						fmt.Fprintln(w)
						writeStackCounts(w, counts)
					}
				})
			})
		},
	}
	cmd.Flags().StringVar(&f.Tenant, "tenant", "", "only this tenant")
	cmd.Flags().StringVar(&f.State, "state", "", "only this state")
	cmd.Flags().StringVar(&f.Ready, "ready", "", "only instances whose Ready condition, as last observed, is True, False or Unknown")
	cmd.Flags().StringVar(&f.Stack, "stack", "", "only instances of this stack")
	cmd.Flags().StringVar(&f.Drifted, "drifted", "", "only instances whose last drift check said True or False")
	cmd.Flags().BoolVar(&f.Gated, "gated", false, "only instances with scheduling gates set")
	cmd.Flags().BoolVar(&f.AwaitingApproval, "awaiting-approval", false, "only instances whose operation waits for its plan to be approved")
	cmd.Flags().BoolVar(&f.Retrying, "retrying", false, "only instances whose running step keeps failing and is retried (Retrying)")
	cmd.Flags().DurationVar(&expiring, "expiring", 0, "only instances whose expiry ends within this long, such as 48h")
	cmd.Flags().BoolVar(&f.All, "all", false, "include closed instances (deprovisioned or never provisioned)")
	cmd.Flags().BoolVar(&countsOnly, "counts", false, "with --stack: only the stack's ready, updated and total counts, overall and per tenant")
	out = outputFlag(cmd)
	return cmd
}

func forTenant(t string) string {
	if t == "" {
		return ""
	}
	return " in tenant " + t
}

// writeStackCounts prints a stack's standing counts: all tenants first ("*"), then each.
func writeStackCounts(w io.Writer, counts []client.StackCount) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STACK\tTENANT\tREADY\tUPDATED\tTOTAL")
	for _, c := range counts {
		t := c.Tenant
		if t == "" {
			t = "*"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", c.Stack, t, c.Ready, c.Updated, c.Total)
	}
	_ = tw.Flush()
}

// writeList prints the instances as a table.
func writeList(w io.Writer, items []client.ListItem) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "INSTANCE\tSTACK\tRELEASE\tSTATE\tREADY\tDRIFTED\tROLLOUT\tSTARTED\tCLOSED")
	for _, it := range items {
		closed := "-"
		if it.Closed != nil {
			closed = it.Closed.Format(time.DateTime)
		}
		state := it.State
		if it.Retrying {
			state += " (Retrying)"
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", it.Tenant, it.Name, dash(it.Stack), dash(releaseOf(it.Release)), state, dash(it.Ready),
			dash(it.Drifted), dash(strings.TrimPrefix(it.Rollout, "rollout/")), it.Started.Format(time.DateTime), closed)
	}
	_ = tw.Flush()
}
