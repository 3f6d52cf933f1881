package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/notify"
)

func (g *globals) notifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notify",
		Short: "Notification sinks (SLIPWAY_NOTIFY_FILE): check a sinks file before a worker loads it",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE",
		Short: "Validate a sinks file as the worker will (secrets read from the environment); exit 2 names each bad field",
		Long: `A sinks file lists where notifications go: a webhook signed with HMAC-SHA256 (secretEnv names the
variable holding the key), a Slack-compatible incoming webhook, or the forge (commit status and
MR comment). URLs must be https, except on loopback. Each sink may narrow tenants and events
(Failed, Ready, Drifted, RolloutBatch, AwaitingApproval, DependencyStale, Retrying, Expiring, UpgradePlanned).`,
		Args: exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := notify.Load(args[0], os.Getenv)
			if err != nil {
				return usageErr("%v", err)
			}
			for _, s := range cfg.Sinks {
				g.printf("%s\n", s)
			}
			g.printf("%s: %d sink(s), valid\n", args[0], len(cfg.Sinks))
			return nil
		},
	})
	return cmd
}
