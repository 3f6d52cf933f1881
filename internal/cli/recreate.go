package cli

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// recreateCmd is BOSH's recreate: a deploy of the Deployed instance, as it is, whose app objects
// are deleted and created again after the stack's drain hook. It is a deploy to the policy and in
// the instance's record, so the same rules and the same verified actor apply.
func (g *globals) recreateCmd() *cobra.Command {
	var wait bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "recreate TENANT/NAME",
		Short: "Replace a Deployed instance's workload in place (BOSH recreate): drain, then delete and create its app objects again",
		Args:  exactArgs(1, "TENANT/NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, err := parseRef(args[0])
			if err != nil {
				return err
			}
			if timeout < 0 {
				return usageErr("--timeout: %s must not be negative", timeout)
			}
			return g.submit(cmd.Context(), ref, lifecycle.OpDeploy, contract.OperationRequest{DeployTimeout: timeout, Recreate: true}, wait)
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "deadline for the app to become Synced+Healthy (default: the instance's, 10m)")
	cmd.Flags().BoolVar(&wait, "wait", false, "show live step progress and end with the final state")
	return cmd
}
