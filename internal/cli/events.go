package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/steps"
)

func (g *globals) eventsCmd() *cobra.Command {
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "events [--limit N]",
		Short: "Show recorded webhook deliveries and what became of each command, newest first",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit < 1 {
				return usageErr("--limit: must be at least 1, got %d", limit)
			}
			c, err := g.dial(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			evs, err := c.Events(cmd.Context(), limit)
			if err != nil {
				return err
			}
			if asJSON {
				if evs == nil {
					evs = []client.DeliveryEvent{}
				}
				return g.json(evs)
			}
			for _, ev := range evs {
				g.printf("%s  %s  %s\n", ev.Started.Local().Format(time.DateTime), ev.Workflow, ev.Status)
				for _, o := range ev.Outcomes {
					g.printf("    %s\n", outcomeLine(o))
				}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many deliveries to show")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
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
