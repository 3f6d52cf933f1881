package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/demo"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
)

func (g *globals) demoCmd() *cobra.Command {
	var stateDir, deployer string
	var keep bool
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "One shot: start the embedded default and run an example instance's whole lifecycle, checking each step",
		Long: `Starts a Temporal dev server on free loopback ports (or reuses TEMPORAL_ADDRESS if it is set and answers),
a fresh GitOps repo and a worker, then runs create, deploy, plan, update, archive, deploy, destroy and
deprovision of demo/web, printing each transition. Exits 0 only if every step really ran.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkDeployer(deployer); err != nil {
				return err
			}
			dir := stateDir
			if dir == "" {
				tmp, err := os.MkdirTemp("", "slipway-demo-")
				if err != nil {
					return err
				}
				dir = tmp
				if !keep {
					defer os.RemoveAll(tmp)
				}
			}
			env, err := devenv.Start(cmd.Context(), devenv.EnvOptions{
				StateDir: dir, Address: orElse(g.address, os.Getenv("TEMPORAL_ADDRESS")), Headless: true, TaskQueue: g.taskQueue,
				Deployer: deployer, ArgoURL: os.Getenv("SLIPWAY_ARGOCD_URL"), ArgoToken: os.Getenv("SLIPWAY_ARGOCD_TOKEN"),
			})
			if err != nil {
				return err
			}
			defer env.Stop()
			if !env.TerraformSandbox.Secure() {
				g.printf("%s\n", env.TerraformSandbox)
			}
			if err := demo.Run(cmd.Context(), env, g.streams.Out); err != nil {
				g.printf("demo FAILED: %v\n", err)
				return failed
			}
			if keep {
				g.printf("state kept in %s\n", dir)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&stateDir, "state-dir", "", "state directory (default: a temporary one)")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the temporary state directory")
	addDeployerFlag(cmd, &deployer)
	return cmd
}
