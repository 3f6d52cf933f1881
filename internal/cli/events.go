package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
)

func (g *globals) eventsCmd() *cobra.Command {
	var limit int
	var follow bool
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "events [TENANT/NAME [--follow]] [--limit N] [-o text|json|jsonl|yaml]",
		Short: "Show an instance's log (requests, states, pipelines, steps, observations), or without one the webhook deliveries",
		Long: `With TENANT/NAME: the instance's log, oldest first, read from its workflow history across
continue-as-new runs; --follow then waits for new entries (a long poll, no polling loop) until
Ctrl-C; -o json (or jsonl) prints one JSON object a line, -o yaml one YAML document each. Without:
the recorded webhook deliveries and what became of each command, newest first (--limit); -o json
prints them as one array, jsonl one a line.`,
		Args: maxArgs(1, "at most one TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 1 {
				return usageErr("--limit: must be at least 1, got %d", limit)
			}
			if follow && len(args) == 0 {
				return usageErr("--follow: follows one instance: give TENANT/NAME")
			}
			if len(args) == 1 && cmd.Flags().Changed("limit") {
				return usageErr("--limit: counts webhook deliveries; an instance's log has no limit")
			}
			var ref contract.Ref
			if len(args) == 1 {
				var err error
				if ref, err = parseRef(args[0]); err != nil {
					return err
				}
			}
			return g.withReader(cmd, func(c reader) error {
				if len(args) == 1 {
					return c.InstanceEvents(cmd.Context(), ref, follow, g.printEvent(out, time.Local))
				}
				evs, err := c.Events(cmd.Context(), limit)
				if err != nil {
					return err
				}
				return g.printDeliveries(evs, out, time.Local)
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many deliveries to show")
	out = outputFlag(cmd, formatText, formatJSON, formatJSONL, formatYAML)
	return cmd
}

// printEvent prints one log entry as it comes (the log may be followed): a JSON line, a YAML
// document, or time (in loc), kind and text.
func (g *globals) printEvent(out *outputFormat, loc *time.Location) func(client.InstanceEvent) error {
	return func(ev client.InstanceEvent) error {
		return g.item(out, ev, func(w io.Writer) {
			fmt.Fprintf(w, "%s  %-9s  %s\n", ev.At.In(loc).Format("2006-01-02 15:04:05.000"), ev.Kind, ev.Text)
		})
	}
}

// printDeliveries prints webhook deliveries: a JSON array, or each start time (in loc),
// workflow and status with what became of its commands.
func (g *globals) printDeliveries(evs []client.DeliveryEvent, out *outputFormat, loc *time.Location) error {
	if evs == nil {
		evs = []client.DeliveryEvent{}
	}
	if out.value == formatJSONL {
		for _, ev := range evs {
			if err := g.jsonLine(ev); err != nil {
				return err
			}
		}
		return nil
	}
	return g.output(out, evs, func(w io.Writer) {
		for _, ev := range evs {
			fmt.Fprintf(w, "%s  %s  %s\n", ev.Started.In(loc).Format(time.DateTime), ev.Workflow, ev.Status)
			for _, o := range ev.Outcomes {
				fmt.Fprintf(w, "    %s\n", outcomeLine(o))
			}
		}
	})
}

func outcomeLine(o contract.DeliveryOutcome) string {
	what := o.Operation + " " + o.Instance
	if o.Instance == "" {
		what = "delivery"
	}
	if o.Started {
		return fmt.Sprintf("started  %s (request %s)", what, o.Request)
	}
	return fmt.Sprintf("refused  %s: %s", what, o.Error)
}
