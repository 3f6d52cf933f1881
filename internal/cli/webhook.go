package cli

import (
	"context"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/app"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/webhook"
)

func (g *globals) webhookCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "webhook", Short: "Start lifecycles from signed forge webhooks"}
	var o webhook.Options
	var listen, secretFile string
	serve := &cobra.Command{
		Use:   "serve --listen ADDR",
		Short: "Serve /github, /gitlab, /gitea and /forgejo webhooks: [slipway][op] tenant/name commit lines and merged PRs",
		Long: `Pushes to the branch (default main) start one request per "[slipway][<operation>] tenant/name" line
of each commit message; merged pull/merge requests that add, change or delete instances/<tenant>/<name>/
create, deploy or (with --allow-deprovision) deprovision them. Deliveries are signed with the shared
secret (GitHub X-Hub-Signature-256, Gitea/Forgejo X-Gitea-Signature, GitLab X-Gitlab-Token) and
deduplicated by delivery ID. The GitOps repository is read through the worker's forge settings (SLIPWAY_FORGE, ...).`,
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
			repo, err := app.NewForge(app.FromEnv())
			if err != nil {
				return err
			}
			c, err := g.dial(cmd.Context())
			if err != nil {
				return err
			}
			defer c.Close()
			h, err := webhook.New(o, webhook.ClientSubmitter(c, g.accept), repo)
			if err != nil {
				return usageErr("%v", err)
			}
			return g.serve(cmd.Context(), listen, h)
		},
	}
	f := serve.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on, e.g. 127.0.0.1:8080")
	f.StringVar(&secretFile, "secret-file", "", "file holding the shared secret (default: $SLIPWAY_WEBHOOK_SECRET)")
	f.StringVar(&o.Branch, "branch", "main", "only pushes and merges into this branch count")
	f.BoolVar(&o.AllowDeprovision, "allow-deprovision", false, "let a deleted instance folder or a [slipway][deprovision] line deprovision (final)")
	cmd.AddCommand(serve)
	return cmd
}

func (g *globals) serve(ctx context.Context, listen string, h http.Handler) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	g.printf("slipway webhook serving on http://%s (/github, /gitlab, /gitea, /forgejo)\n", ln.Addr())
	return serveUntilDone(ctx, ln, h)
}
