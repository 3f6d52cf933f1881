package cli

import "github.com/spf13/cobra"

// stackCmd stands in for part A's until the merge; its stack command adds stackPreviewCmd.
func (g *globals) stackCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "stack", Short: "Stack releases and fleet previews"}
	cmd.AddCommand(g.stackPreviewCmd())
	return cmd
}
