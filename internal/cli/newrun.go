package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
)

// newRunCmd moves an idle instance to a new run of its workflow (continue-as-new), the step of
// retiring a workflow version that parked instances need (docs/versions.md).
func (g *globals) newRunCmd() *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "new-run TENANT/NAME",
		Short: "Continue an idle instance's workflow as new now, so it runs on the workers' current code (retiring a workflow version)",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			if g.server != "" {
				return usageErr("--server: new-run talks to Temporal itself (an operator's step of retiring a workflow version); leave --server out")
			}
			return g.withSignedClient(cmd, func(c *client.Client) error {
				res, err := c.NewRun(cmd.Context(), ref, g.requestID)
				if err != nil {
					return err
				}
				return g.output(out, res, func(w io.Writer) {
					fmt.Fprintf(w, "%s: run %s ended; the instance goes on in a new run on the workers' current code\n", ref, res.EndedRun)
				})
			})
		},
	}
	out = outputFlag(cmd)
	return cmd
}
