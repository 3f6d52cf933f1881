package cli

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/sdk/client"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/devstack/devenv"
	"github.com/slipway-dev/slipway/internal/devstack/temporalcluster"
	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/internal/logging"
)

func (g *globals) devCmd() *cobra.Command {
	var stateDir, deployer, engine string
	var uiPort, nodes int
	cmd := &cobra.Command{
		Use:   "dev [--state-dir DIR] [--temporal dev|postgres [--temporal-nodes N]]",
		Short: "Run the embedded default in the foreground: Temporal dev server (UI on :8233), GitOps repo, worker",
		Long: `Reuses the Temporal frontend at --address or TEMPORAL_ADDRESS (default 127.0.0.1:7233) if it answers,
otherwise starts ` + "`temporal server start-dev`" + ` there with the UI, which decodes payloads through a
codec endpoint served here on loopback (a reused server's UI needs that endpoint, on 127.0.0.1:8081 or
a free port, pasted into it once). With --temporal postgres it starts
PostgreSQL 15 (data in DIR/postgres, kept across restarts) and a real Temporal cluster
(temporal-server ` + temporalcluster.ServerVersion + `, --temporal-nodes nodes, no UI) whose frontend is TEMPORAL_ADDRESS.
The GitOps repo is DIR/gitops (a bare git repo, branch main) seeded with the stack ` + "`example`" + `.
Stop with Ctrl-C.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkDeployer(deployer); err != nil {
				return err
			}
			if err := checkEngine(engine, nodes, cmd.Flags().Changed("temporal-nodes")); err != nil {
				return err
			}
			zl, err := logging.New(logging.LevelFromEnv("info"))
			if err != nil {
				return usageErr("%v", err)
			}
			defer func() { _ = zl.Sync() }()
			env, err := devenv.Start(cmd.Context(), devenv.EnvOptions{
				StateDir: stateDir, Address: orElse(g.address, envOr("TEMPORAL_ADDRESS", client.DefaultHostPort)), UIPort: uiPort,
				TaskQueue: g.taskQueue, Logger: logging.NewTemporal(zl),
				TFPGConn: os.Getenv("SLIPWAY_TF_PG_CONN"), Deployer: deployer,
				ArgoURL: os.Getenv("SLIPWAY_ARGOCD_URL"), ArgoToken: os.Getenv("SLIPWAY_ARGOCD_TOKEN"),
				Temporal: engine, TemporalNodes: nodes, CodecListen: devCodecListen, NotifyFile: os.Getenv("SLIPWAY_NOTIFY_FILE"),
			})
			if err != nil {
				return err
			}
			defer env.Stop()
			g.printf("slipway dev is running (Ctrl-C to stop)\n")
			g.printf("  temporal:   %s", env.Address)
			switch {
			case env.Cluster != nil:
				printCluster(g, env.Cluster)
			case env.Server == nil:
				g.printf(" (reused)\n")
			default:
				g.printf(" (started; db %s)\n", filepath.Join(env.StateDir, "temporal.db"))
			}
			printUI(g, env)
			g.printf("  gitops:     %s\n  state:      %s\n", env.GitOpsRepo, env.StateDir)
			g.printf("  hooks:      %s\n", env.Activities.HookSandbox)
			g.printf("  terraform:  %s\n", env.TerraformSandbox)
			printDeployer(g, env)
			printKey(g, env)
			g.printf("try:\n  export TEMPORAL_ADDRESS=%s\n%s  slipway create demo/web -f examples/instances/web.yaml --wait\n  slipway deploy demo/web --wait\n", env.Address, keyExport(env))
			<-cmd.Context().Done()
			g.printf("stopping\n")
			return nil
		},
	}
	cmd.Flags().StringVar(&stateDir, "state-dir", localdirs.DevState(), "where the GitOps repo, terraform state and the dev server's database live")
	cmd.Flags().IntVar(&uiPort, "ui-port", 8233, "Temporal UI port when slipway starts the dev server")
	cmd.Flags().StringVar(&engine, "temporal", devenv.EngineDev,
		"engine to start when none answers: dev (temporal server start-dev, SQLite, UI) or postgres (a Temporal cluster on PostgreSQL, as in production)")
	cmd.Flags().IntVar(&nodes, "temporal-nodes", 1, "Temporal server nodes with --temporal postgres (1-9)")
	addDeployerFlag(cmd, &deployer)
	return cmd
}

// addDeployerFlag: argocd (a real ArgoCD on a real kube-apiserver, started here unless
// SLIPWAY_ARGOCD_URL names one) or none (nothing is applied; status says so).
func addDeployerFlag(cmd *cobra.Command, dst *string) {
	cmd.Flags().StringVar(dst, "deployer", envOr("SLIPWAY_DEPLOYER", "argocd"),
		"argocd: deploy through a real ArgoCD (started locally unless SLIPWAY_ARGOCD_URL is set); none: apply nothing")
}

func checkDeployer(d string) error {
	if d != "argocd" && d != "none" {
		return usageErr("--deployer: %q is not one of argocd, none", d)
	}
	return nil
}

func printDeployer(g *globals, env *devenv.Env) {
	switch {
	case env.Deployer == "none":
		g.printf("  deployer:   none (nothing is applied to a cluster)\n")
	case env.Argo != nil:
		g.printf("  deployer:   argocd %s on kube-apiserver %s (logs in %s)\n", env.Argo.ArgoURL, env.Argo.KubeURL, env.Argo.Dir)
		g.printf("  kubeconfig: %s\n", env.Argo.Kubeconfig)
	default:
		g.printf("  deployer:   argocd %s\n", os.Getenv("SLIPWAY_ARGOCD_URL"))
	}
}

// devCodecListen is where `slipway dev` serves the codec endpoint for a reused server's UI
// (a free port when it is taken). A UI it starts itself gets one on a free port.
const devCodecListen = "127.0.0.1:8081"

// uiCodecSetting is where the Temporal UI (2.42) takes a codec endpoint by hand (then Apply).
const uiCodecSetting = "Codec Server button (top right, by the time zone) -> Codec Server browser endpoint"

// printUI says where the UI is and how it decodes payloads: a UI started here uses the
// codec endpoint by itself; a reused server's UI needs it pasted once.
func printUI(g *globals, env *devenv.Env) {
	switch {
	case env.Server != nil && env.Server.UIURL != "":
		g.printf("  UI:         %s (decodes payloads through the codec endpoint %s)\n", env.Server.UIURL, env.CodecURL)
	case env.CodecURL != "":
		g.printf("  codec:      %s (CORS for %s)\n", env.CodecURL, strings.Join(env.CodecOrigins(), ", "))
		g.printf("              Temporal UI: %s: paste it, then Apply\n", uiCodecSetting)
	}
}

// printKey says where the payload key is, so other shells and the codec server can use it.
func printKey(g *globals, env *devenv.Env) {
	if env.KeyFile == "" {
		g.printf("  codec key:  from %s\n", codec.EnvKey)
		return
	}
	g.printf("  codec key:  %s (payloads in history are encrypted)\n", env.KeyFile)
}

// keyExport is the line other shells need, unless they find the key by themselves.
func keyExport(env *devenv.Env) string {
	var out string
	if env.KeyFile != "" {
		out = "  export " + codec.EnvKeyFile + "=" + env.KeyFile + "\n"
	}
	// The CLI finds the default dev state dir's attestation key by itself; another dir's it must be told.
	if env.AttestKeyFile != "" && env.AttestKeyFile != attest.DevKeyFile() {
		out += "  export " + attest.EnvKeyFile + "=" + env.AttestKeyFile + "\n"
	}
	return out
}

func checkEngine(engine string, nodes int, nodesSet bool) error {
	switch engine {
	case devenv.EngineDev:
		if nodesSet {
			return usageErr("--temporal-nodes: only with --temporal postgres (the dev server is one process)")
		}
	case devenv.EnginePostgres:
		if nodes < 1 || nodes > 9 {
			return usageErr("--temporal-nodes: %d is not in 1-9", nodes)
		}
	default:
		return usageErr("--temporal: %q is not one of dev, postgres", engine)
	}
	return nil
}

func printCluster(g *globals, c *devenv.ClusterEngine) {
	g.printf(" (started: %d-node Temporal cluster %s, no UI)\n", len(c.Cluster.Nodes()), temporalcluster.ServerVersion)
	for _, n := range c.Cluster.Nodes() {
		g.printf("  %-12sfrontend %s, log %s\n", n.Name()+":", n.Address(), n.LogPath())
	}
	g.printf("  postgres:   %s (data %s)\n", net.JoinHostPort(c.Postgres.Host, strconv.Itoa(c.Postgres.Port)), c.Postgres.DataDir)
}
