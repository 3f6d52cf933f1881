package cli

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/webhook"
)

func (g *globals) webhookCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "webhook", Short: "Start lifecycles from signed forge webhooks"}
	var o webhook.Options
	var listen, secretFile string
	var sf serveFlags
	serve := &cobra.Command{
		Use:   "serve --listen ADDR",
		Short: "Serve /github, /gitlab, /gitea and /forgejo webhooks: [slipway][op] tenant/name commit lines and merged PRs",
		Long: `Pushes to the branch (default main) start one request per "[slipway][<operation>] tenant/name" line
of each commit message; merged pull/merge requests that add, change or delete instances/<tenant>/<name>/
create, deploy or (with --allow-deprovision) deprovision them. Deliveries are signed with the shared
secret (GitHub X-Hub-Signature-256, Gitea/Forgejo X-Gitea-Signature, GitLab X-Gitlab-Token) and
deduplicated by delivery ID. Each delivery is recorded in Temporal (workflow delivery/<provider>/<ID>) before
it is answered 202, without waiting for a worker; the workers read the GitOps repository and submit the
commands, and ` + "`slipway events`" + ` shows what became of each. When Temporal cannot record it in
--record-timeout, the answer is 503 with Retry-After, and a redelivery is carried out.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen == "" {
				return usageErr("--listen: give an address such as 127.0.0.1:8080")
			}
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return usageErr("--listen: %v", err)
			}
			secret := os.Getenv("SLIPWAY_WEBHOOK_SECRET")
			if secretFile != "" {
				data, err := os.ReadFile(secretFile)
				if err != nil {
					return usageErr("--secret-file: %v", err)
				}
				secret = strings.TrimSpace(string(data))
			}
			o.Secret = []byte(secret)
			zl, err := logging.New(logging.LevelFromEnv("info"))
			if err != nil {
				return usageErr("SLIPWAY_LOG_LEVEL: %v", err)
			}
			defer func() { _ = zl.Sync() }()
			o.Logger = zl
			// Lazy: a webhook server that starts while Temporal is down answers 503, not "connection refused".
			c, err := client.DialLazy(g.taskQueue, client.WithLogger(logging.NewTemporal(zl)))
			if err != nil {
				return err
			}
			defer c.Close()
			h, err := webhook.New(o, c)
			if err != nil {
				return usageErr("%v", err)
			}
			defer h.Close() // after the HTTP server has drained: accepted deliveries finish recording
			return g.serve(cmd.Context(), listen, h, &sf, zl)
		},
	}
	f := serve.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on, e.g. 127.0.0.1:8080")
	f.StringVar(&secretFile, "secret-file", "", "file holding the shared secret (default: $SLIPWAY_WEBHOOK_SECRET)")
	f.StringVar(&o.Branch, "branch", "main", "only pushes and merges into this branch count")
	f.DurationVar(&o.RecordTimeout, "record-timeout", 5*time.Second, "longest wait to record a delivery in Temporal before answering 503 (forges give a hook about 10s)")
	f.BoolVar(&o.AllowDeprovision, "allow-deprovision", false, "let a deleted instance folder or a [slipway][deprovision] line deprovision (final)")
	sf.add(serve)
	serve.PreRunE = sf.check
	cmd.AddCommand(serve)
	return cmd
}

// serve runs h on listen with the network-facing settings until ctx ends.
func (g *globals) serve(ctx context.Context, listen string, h http.Handler, sf *serveFlags, zl *zap.Logger) error {
	srv, err := sf.server(zl)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	g.printf("slipway webhook serving on %s://%s (/github, /gitlab, /gitea, /forgejo)\n", srv.Scheme(), ln.Addr())
	return srv.Serve(ctx, ln, h)
}
