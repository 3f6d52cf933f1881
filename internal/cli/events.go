package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/steps"
)

func (g *globals) eventsCmd() *cobra.Command {
	var limit int
	var asJSON, follow bool
	cmd := &cobra.Command{
		Use:   "events [TENANT/NAME [--follow]] [--limit N] [--json]",
		Short: "Show an instance's log (requests, states, pipelines, steps, observations), or without one the webhook deliveries",
		Long: `With TENANT/NAME: the instance's log, oldest first, read from its workflow history across
continue-as-new runs; --follow then waits for new entries (a long poll, no polling loop) until
Ctrl-C; --json prints one JSON object a line. Without: the recorded webhook deliveries and what
became of each command, newest first (--limit).`,
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
			c, err := g.dial(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			if len(args) == 1 {
				ref, err := parseRef(args[0])
				if err != nil {
					return err
				}
				return c.InstanceEvents(cmd.Context(), ref, follow, g.printEvent(asJSON, time.Local))
			}
			evs, err := c.Events(cmd.Context(), limit)
			if err != nil {
				return err
			}
			return g.printDeliveries(evs, asJSON, time.Local)
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many deliveries to show")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printEvent prints one log entry: a JSON line, or time (in loc), kind and text.
func (g *globals) printEvent(asJSON bool, loc *time.Location) func(client.InstanceEvent) error {
	return func(ev client.InstanceEvent) error {
		if asJSON {
			data, err := json.Marshal(ev)
			if err != nil {
				return err
			}
			g.printf("%s\n", data)
			return nil
		}
		g.printf("%s  %-9s  %s\n", ev.At.In(loc).Format("2006-01-02 15:04:05.000"), ev.Kind, ev.Text)
		return nil
	}
}

// printDeliveries prints webhook deliveries: a JSON array, or each start time (in loc),
// workflow and status with what became of its commands.
func (g *globals) printDeliveries(evs []client.DeliveryEvent, asJSON bool, loc *time.Location) error {
	if asJSON {
		if evs == nil {
			evs = []client.DeliveryEvent{}
		}
		return g.json(evs)
	}
	for _, ev := range evs {
		g.printf("%s  %s  %s\n", ev.Started.In(loc).Format(time.DateTime), ev.Workflow, ev.Status)
		for _, o := range ev.Outcomes {
			g.printf("    %s\n", outcomeLine(o))
		}
	}
	return nil
}

func outcomeLine(o steps.DeliveryOutcome) string {
	what := o.Operation + " " + o.Instance
	if o.Instance == "" {
		what = "delivery"
	}
	if o.Started {
		return fmt.Sprintf("started  %s (request %s)", what, o.Request)
	}
	return fmt.Sprintf("refused  %s: %s", what, o.Error)
}
