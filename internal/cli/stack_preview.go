package cli

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

// releaseRE is a release version as --to takes it: 1.5.0, 2.0.0-rc.1.
var releaseRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$`)

func (g *globals) stackPreviewCmd() *cobra.Command {
	var spec contract.PreviewSpec
	var noWait bool
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "preview STACK --to RELEASE [--tenant T] [--sample N] [--concurrency K] [--id ID] [--no-wait]",
		Short: "Plan every instance of a stack on a release, a few at a time, and group them by plan fingerprint; changes nothing",
		Long: `Each instance in scope plans its instance file with the stack: line re-pinned to the release,
as its own plan operation: the real terraform plan (the state lock is held for the plan only)
and the diff of its rendered files. A busy instance is reported busy, never waited for. The
instances are grouped by plan fingerprint (the resources without instance keys, the action, the
changed attribute names); a group that deletes or replaces a resource the stack marks stateful:
is flagged, since a rollback cannot bring its data back. The preview is the workflow
stack-preview/ID; its result is kept (slipway stack preview show ID).`,
		Args: exactArgs(1, "STACK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec.Stack, spec.Actor = args[0], g.actor
			switch {
			case !labelRE.MatchString(spec.Stack):
				return usageErr("STACK %q: must be a lowercase label (a-z, 0-9, -)", spec.Stack)
			case !releaseRE.MatchString(spec.To):
				return usageErr("--to %q: must name a release, e.g. 1.5.0", spec.To)
			case spec.Tenant != "" && !labelRE.MatchString(spec.Tenant):
				return usageErr("--tenant %q: must be a lowercase label (a-z, 0-9, -)", spec.Tenant)
			case spec.Sample < 0 || spec.Sample > contract.MaxPreviewSample:
				return usageErr("--sample: must be 0 (all) to %d, got %d", contract.MaxPreviewSample, spec.Sample)
			case spec.Concurrency < 1 || spec.Concurrency > contract.MaxDriftConcurrency:
				return usageErr("--concurrency: must be 1 to %d, got %d", contract.MaxDriftConcurrency, spec.Concurrency)
			case spec.ID == "":
				spec.ID = "p-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:8]
			case !labelRE.MatchString(spec.ID):
				return usageErr("--id %q: must be a lowercase label (a-z, 0-9, -)", spec.ID)
			}
			api, err := g.api()
			if err != nil {
				return err
			}
			if api != nil {
				if err := api.StartPreview(cmd.Context(), spec); err != nil {
					return err
				}
				if noWait {
					g.printf("preview %s started (workflow %s); see it with slipway stack preview show %s --stack %s\n", spec.ID, contract.PreviewWorkflowID(spec.ID), spec.ID, spec.Stack)
					return nil
				}
				res, err := g.waitPreview(cmd.Context(), api, spec.Stack, spec.ID)
				if err != nil {
					return err
				}
				return g.output(out, res, func(w io.Writer) { writePreview(w, res) })
			}
			return g.withSignedClient(cmd, func(c *client.Client) error {
				if err := c.StartPreview(cmd.Context(), spec); err != nil {
					return err
				}
				if noWait {
					g.printf("preview %s started (workflow %s); see it with slipway stack preview show %s\n", spec.ID, contract.PreviewWorkflowID(spec.ID), spec.ID)
					return nil
				}
				res, err := c.Preview(cmd.Context(), spec.ID, true)
				if err != nil {
					return err
				}
				return g.output(out, res, func(w io.Writer) { writePreview(w, res) })
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&spec.To, "to", "", "the release to preview, e.g. 1.5.0 (required)")
	fl.StringVar(&spec.Tenant, "tenant", "", "only this tenant's instances")
	fl.IntVar(&spec.Sample, "sample", 0, "plan only this many instances, spread over the tenants (0: all)")
	fl.IntVar(&spec.Concurrency, "concurrency", 4, "plans at once")
	fl.StringVar(&spec.ID, "id", "", "the preview's ID (default: generated)")
	fl.BoolVar(&noWait, "no-wait", false, "start it and return; read it later with show")
	_ = cmd.MarkFlagRequired("to")
	out = outputFlag(cmd)
	cmd.AddCommand(g.stackPreviewShowCmd())
	return cmd
}

// waitPreview asks the server how far preview id got until it is done.
func (g *globals) waitPreview(ctx context.Context, api *apiserver.Client, stack, id string) (contract.PreviewResult, error) {
	for {
		res, err := api.Preview(ctx, stack, id)
		if err != nil || res.Done {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
}

func (g *globals) stackPreviewShowCmd() *cobra.Command {
	var out *outputFormat
	var stack string
	cmd := &cobra.Command{
		Use:   "show ID [--stack S]",
		Short: "A preview's groups, running or ended (-o json: every instance's plan)",
		Args:  exactArgs(1, "the preview ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			api, err := g.api()
			if err != nil {
				return err
			}
			if api != nil {
				if !labelRE.MatchString(stack) {
					return usageErr("--stack %q: with --server, name the preview's stack (a lowercase label)", stack)
				}
				res, err := api.Preview(cmd.Context(), stack, args[0])
				if err != nil {
					return err
				}
				return g.output(out, res, func(w io.Writer) { writePreview(w, res) })
			}
			return g.withClient(cmd, func(c *client.Client) error {
				res, err := c.Preview(cmd.Context(), args[0], false)
				if err != nil {
					return err
				}
				return g.output(out, res, func(w io.Writer) { writePreview(w, res) })
			})
		},
	}
	cmd.Flags().StringVar(&stack, "stack", "", "the preview's stack (needed with --server)")
	out = outputFlag(cmd)
	return cmd
}

// writePreview prints the groups, largest first, then the instances not planned and why.
func writePreview(w io.Writer, res contract.PreviewResult) {
	state := "running"
	if res.Done {
		state = "done"
	}
	if res.Listing {
		state += ", listing more"
	}
	fmt.Fprintf(w, "preview %s of stack %s → %s (%s): %d of %d instances planned\n", res.Spec.ID, res.Spec.Stack, res.Spec.To, state, res.Planned, res.Total)
	for _, gr := range res.Groups {
		fmt.Fprintf(w, "%d instance(s): %s   [fingerprint %s]\n", gr.Count, gr.Summary, gr.Hash)
		refs := make([]string, 0, len(gr.Instances)+1)
		for _, r := range gr.Instances {
			refs = append(refs, r.String())
		}
		if more := gr.Count - len(gr.Instances); more > 0 {
			refs = append(refs, fmt.Sprintf("… and %d more", more))
		}
		fmt.Fprintf(w, "    %s\n", strings.Join(refs, ", "))
		if len(gr.Stateful) > 0 {
			fmt.Fprintf(w, "    STATEFUL: deletes or replaces %s; a rollback cannot bring back the data\n", strings.Join(gr.Stateful, ", "))
		}
	}
	if res.Ungrouped > 0 {
		fmt.Fprintf(w, "… and %d more instance(s) planned, in shapes beyond the first %d (a preview keeps that many)\n", res.Ungrouped, contract.MaxPreviewGroups)
	}
	for _, p := range res.Instances {
		if p.Outcome != contract.PreviewPlanned && p.Outcome != "" && p.Outcome != contract.PreviewSkipped {
			fmt.Fprintf(w, "%s %s: %s\n", p.Outcome, p.Ref, p.Message)
		}
	}
	for _, o := range []string{contract.PreviewBusy, contract.PreviewFailed} {
		if more := res.NotPlanned[o] - countOutcome(res.Instances, o); more > 0 {
			fmt.Fprintf(w, "… and %d more %s (a preview names at most %d instances not planned)\n", more, o, contract.MaxPreviewNamed)
		}
	}
	if n := max(countOutcome(res.Instances, contract.PreviewSkipped), res.NotPlanned[contract.PreviewSkipped]); n > 0 {
		fmt.Fprintf(w, "%d skipped (not deployed, at the release already, or not in the sample; -o json names up to %d)\n", n, contract.MaxPreviewNamed)
	}
}

func countOutcome(all []contract.PreviewInstance, outcome string) int {
	n := 0
	for _, p := range all {
		if p.Outcome == outcome {
			n++
		}
	}
	return n
}
