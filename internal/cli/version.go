package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/version"
)

func (g *globals) versionCmd() *cobra.Command {
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version and commit this slipway was built from",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := version.Get()
			return g.output(out, v, func(w io.Writer) { fmt.Fprintf(w, "slipway %s\n", v) })
		},
	}
	out = outputFlag(cmd)
	return cmd
}
