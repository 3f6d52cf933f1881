package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/version"
)

// globals are the flags every command shares.
type globals struct {
	streams   Streams
	taskQueue string
	actor     string // --note: free text recorded with a request; never an identity
	server    string // --server: send mutations through `slipway server` with the signed-in person's token
	profile   string // --profile: the Temporal config profile and the sign-in of that name
	address   string // --address: the Temporal frontend, over TEMPORAL_ADDRESS and the profile
	namespace string // --namespace: over TEMPORAL_NAMESPACE and the profile
	requestID string
	poll      time.Duration
	accept    time.Duration
	plain     bool
}

// NewRoot builds the command tree.
func NewRoot(s Streams) *cobra.Command {
	g := &globals{streams: s}
	root := &cobra.Command{
		Use:           "slipway",
		Short:         "Instance lifecycles as durable Temporal workflows: provision, deploy, update, archive, destroy, deprovision",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Get().String(),
	}
	root.SetVersionTemplate("slipway {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	pf := root.PersistentFlags()
	pf.StringVar(&g.taskQueue, "task-queue", envOr("SLIPWAY_TASK_QUEUE", contract.DefaultTaskQueue), "Temporal task queue of the slipway workers")
	note := envOr("SLIPWAY_NOTE", envOr("SLIPWAY_ACTOR", defaultActor()))
	pf.StringVar(&g.actor, "note", note, "a free-text note recorded with every request and decision (who asks is the signed-in person or the key holder, never this)")
	// Not pflag's MarkDeprecated: its warning goes to stdout, into every --json a script reads.
	pf.StringVar(&g.actor, "actor", note, "deprecated alias of --note (who asks is verified, never declared)")
	pf.StringVar(&g.server, "server", os.Getenv("SLIPWAY_SERVER"), "URL of `slipway server`: send changes (and status, secrets) through it as the person `slipway login` signed in (SLIPWAY_SERVER)")
	pf.StringVar(&g.profile, "profile", "", "the profile `NAME`: the Temporal connection of [profile.NAME] in the config file ("+profileFileHelp+") and the sign-in slipway login --profile NAME cached (default $"+identity.EnvProfile+", else $TEMPORAL_PROFILE, else \"default\")")
	pf.StringVar(&g.address, "address", "", "Temporal frontend `HOST:PORT` (over $TEMPORAL_ADDRESS and the profile's; default localhost:7233)")
	pf.StringVar(&g.namespace, "namespace", "", "Temporal `NAMESPACE` (over $TEMPORAL_NAMESPACE and the profile's; default \"default\")")
	pf.StringVar(&g.requestID, "request-id", "", "idempotency key of this request: the same key never runs twice (default: random)")
	pf.DurationVar(&g.poll, "poll", 0, "ignored: --wait follows the instance's history instead of polling")
	_ = pf.MarkDeprecated("poll", "--wait follows the instance's history by long poll; the flag does nothing")
	pf.BoolVar(&g.plain, "plain", false, "watch and --wait print one line per step change, even on a terminal (also SLIPWAY_PROGRESS=plain)")
	pf.DurationVar(&g.accept, "accept-timeout", 30*time.Second, "how long to wait for a worker to accept a request")
	root.AddCommand(
		g.createCmd(), g.deployCmd(), g.planCmd(),
		g.simpleOpCmd("archive", "Remove the app and its namespace; config and infrastructure stay"),
		g.simpleOpCmd("destroy", "terraform destroy and remove the app; the config stays so it can be re-created"),
		g.deprovisionCmd(), g.statusCmd(), g.listCmd(),
		g.decisionCmd("retry", "Continue the failed operation from its failed step, or try a Retrying step of the running one now"),
		g.decisionCmd("resolve", "Say the leftovers were cleaned up by hand; go back to the last good state"),
		g.decisionCmd("abandon", "Give up on the failed operation; leftovers stay on record"),
		g.devCmd(), g.demoCmd(), g.webhookCmd(), g.eventsCmd(), g.watchCmd(),
		g.secretsCmd(), g.codecCmd(), g.codecServerCmd(), g.rolloutCmd(), g.stackCmd(), g.driftCmd(), g.notifyCmd(), g.gateCmd(), g.cancelCmd(), g.protectCmd(), g.unprotectCmd(), g.extendCmd(), g.windowsCmd(), g.approveCmd(), g.rejectCmd(), g.controlPlanesCmd(),
		g.serverCmd(), g.auditCmd(), g.policyCmd(),
		g.recreateCmd(), g.newRunCmd(), g.stackCmd(),
	)
	root.AddCommand(g.loginCmd(), g.logoutCmd(), g.whoamiCmd(), g.versionCmd())
	return root
}

// exactArgs is cobra.ExactArgs with a usage exit code.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr("expected %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}

// maxArgs is cobra.MaximumNArgs with a usage exit code.
func maxArgs(n int, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) > n {
			return usageErr("expected %s, got %d argument(s)", what, len(args))
		}
		return nil
	}
}

func parseRef(s string) (contract.Ref, error) {
	r, err := contract.ParseRef(s)
	if err != nil {
		return contract.Ref{}, usageErr("%v", err)
	}
	return contract.Ref{Tenant: r.Tenant, Name: r.Name}, nil
}

func (g *globals) dial(ctx context.Context) (*client.Client, error) {
	opts := append(tracingOptions(), client.WithLogger(logging.NewTemporal(logging.Nop())), client.WithIdentity(devActor()))
	if tok, err := personToken(g.profile); err != nil {
		return nil, err
	} else if tok != nil {
		opts = append(opts, client.WithToken(tok))
	}
	return client.Dial(ctx, g.taskQueue, g.connect(opts...)...)
}

// withClient dials Temporal, runs fn with the client and closes it.
func (g *globals) withClient(cmd *cobra.Command, fn func(c *client.Client) error) error {
	c, err := g.dial(cmd.Context())
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(c)
}

// withInstance parses TENANT/NAME, dials Temporal and runs fn with both.
func (g *globals) withInstance(cmd *cobra.Command, arg string, fn func(ref contract.Ref, c *client.Client) error) error {
	ref, err := parseRef(arg)
	if err != nil {
		return err
	}
	return g.withClient(cmd, func(c *client.Client) error { return fn(ref, c) })
}

func (g *globals) printf(format string, args ...any) { fmt.Fprintf(g.streams.Out, format, args...) }

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

func defaultActor() string {
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	host, _ := os.Hostname()
	return name + "@" + host
}

// accepting bounds how long a request may wait to be accepted: with no worker
// polling the task queue it would otherwise wait forever.
func (g *globals) accepting(ctx context.Context, send func(ctx context.Context) (*client.Handle, error)) (*client.Handle, error) {
	actx, cancel := context.WithTimeout(ctx, g.accept)
	defer cancel()
	h, err := send(actx)
	if err != nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("no slipway worker accepted the request within %s on task queue %q: is slipway-worker (or slipway dev) running?", g.accept, g.taskQueue)
	}
	return h, err
}
