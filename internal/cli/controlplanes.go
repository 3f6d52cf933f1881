package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/controlplane"
)

func (g *globals) controlPlanesCmd() *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "control-planes",
		Short: "List the worker pools (SLIPWAY_CONTROL_PLANE) that registered, with the instance each runs on",
		Long: `A worker started with SLIPWAY_CONTROL_PLANE=NAME registers its pool: its task queue, the
instance it runs on (SLIPWAY_SELF) and its forge mirror (SLIPWAY_FORGE_MIRROR). An instance file
that says controlPlane: NAME runs its pipelines on that pool only; an unknown pool, or a pool
disrupting the instance it runs on, is refused before anything starts.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return g.withClient(cmd, func(c *client.Client) error {
				pools, err := c.ControlPlanes(cmd.Context())
				if err != nil {
					return err
				}
				if pools == nil {
					pools = []controlplane.Pool{}
				}
				return g.output(out, pools, func(w io.Writer) { writePools(w, pools) })
			})
		},
	}
	out = outputFlag(cmd)
	return cmd
}

func writePools(w io.Writer, pools []controlplane.Pool) {
	if len(pools) == 0 {
		fmt.Fprintln(w, "no control planes registered (start a worker with SLIPWAY_CONTROL_PLANE=NAME)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "POOL\tSELF\tTASK QUEUE\tMIRROR")
	for _, p := range pools {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, dash(p.Self), p.TaskQueue, dash(p.Mirror))
	}
	_ = tw.Flush()
}
