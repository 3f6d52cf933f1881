package cli

import (
	"github.com/spf13/cobra"
)

func (g *globals) auditCmd() *cobra.Command {
	var since, tenant string
	cmd := &cobra.Command{
		Use:   "audit [--since T] [--tenant T]",
		Short: "Export every recorded decision (allowed, denied, approval asked, approved, rejected, refused) as JSON lines",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageErr("audit: not available yet")
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "only decisions at or after this time (RFC 3339, or a duration such as 24h)")
	cmd.Flags().StringVar(&tenant, "tenant", "", "only this tenant's instances")
	return cmd
}
