package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.uber.org/zap"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/health"
	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/webhook"
)

func (g *globals) webhookCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "webhook", Short: "Start lifecycles from signed forge webhooks"}
	var o webhook.Options
	var listen, oldSecretFile, commitOps string
	secretFiles := map[string]*string{}
	repos := map[string]*string{}
	var sf serveFlags
	serve := &cobra.Command{
		Use:   "serve --listen ADDR",
		Short: "Serve /github, /gitlab, /gitea and /forgejo webhooks: [slipway][op] tenant/name commit lines and merged PRs",
		Long: `Pushes to the branch (default main) of an allowed repository start one request per
"[slipway][<operation>] tenant/name" line of each commit message (create, deploy and plan; archive,
destroy and deprovision only when --commit-ops names them); merged pull/merge requests that add,
change or delete instances/<tenant>/<name>/ create, deploy or (with --allow-deprovision) deprovision
them. Each forge has its own secret (` + webhookSecretEnv["github"] + `, ` + webhookSecretEnv["gitlab"] + `,
` + webhookSecretEnv["gitea"] + `; a forge without one is not served) and its own repository allow-list
(default: SLIPWAY_FORGE_REPO for SLIPWAY_FORGE's forge); a delivery from any other repository starts
nothing. A command is keyed by its content (forge, repository, commit, operation, instance), so a
replay under a new delivery ID is not a new request, and a command whose commit no longer holds the
instance's files as main does is refused. Each delivery is recorded in Temporal (workflow
delivery/<provider>/<ID>) before it is answered 202, without waiting for a worker; the workers read the
GitOps repository and submit the commands, and ` + "`slipway events`" + ` shows what became of each. When
Temporal cannot record it in --record-timeout, the answer is 503 with Retry-After, and a redelivery
is carried out.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen == "" {
				return usageErr("--listen: give an address such as 127.0.0.1:8080")
			}
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return usageErr("--listen: %v", err)
			}
			forges, err := webhookForges(oldSecretFile, secretFiles, repos)
			if err != nil {
				return err
			}
			o.Forges = forges
			if o.CommitOps, err = parseCommitOps(commitOps, o.AllowDeprovision); err != nil {
				return err
			}
			zl, err := logging.New(logging.LevelFromEnv("info"))
			if err != nil {
				return usageErr("%v", err)
			}
			defer func() { _ = zl.Sync() }()
			o.Logger = zl
			tel, err := newServerTelemetry("slipway-webhook")
			if err != nil {
				return err
			}
			o.Delivered = tel.metrics.WebhookDelivery
			// Lazy: a webhook server that starts while Temporal is down answers 503, not "connection refused".
			c, err := client.DialLazy(g.taskQueue, g.connect(append(tracingOptions(), tel.clientOption(), client.WithLogger(logging.NewTemporal(zl)),
				client.WithIdentity(identity.Actor{Kind: identity.Service, Issuer: "slipway", Name: "webhook", Via: "webhook"}))...)...)
			if err != nil {
				return err
			}
			defer c.Close()
			h, err := webhook.New(o, c)
			if err != nil {
				return usageErr("%v", err)
			}
			defer h.Close() // after the HTTP server has drained: accepted deliveries finish recording
			tel.health.Add("temporal", health.Temporal(c.Temporal))
			return g.serve(cmd.Context(), listen, tel.front(cmd.Context(), h), &sf, zl)
		},
	}
	f := serve.Flags()
	f.StringVar(&listen, "listen", "", "address to listen on, e.g. 127.0.0.1:8080")
	for _, p := range webhook.Providers {
		secretFiles[p], repos[p] = new(string), new(string)
		f.StringVar(secretFiles[p], webhookSecretFlag[p], "", "file holding the "+p+" endpoint's own secret (default: $"+webhookSecretEnv[p]+")")
		f.StringVar(repos[p], p+"-repos", "", "comma-separated repositories (OWNER/NAME) whose "+p+" deliveries count (default: $SLIPWAY_FORGE_REPO when $SLIPWAY_FORGE is "+p+")")
	}
	f.StringVar(&oldSecretFile, "secret-file", "", "no longer accepted: each forge has its own secret")
	_ = f.MarkHidden("secret-file")
	f.StringVar(&commitOps, "commit-ops", "create,deploy,plan", "operations a [slipway][<op>] commit line may start (add archive, destroy or deprovision to allow them)")
	f.StringVar(&o.Branch, "branch", "main", "only pushes and merges into this branch count")
	f.DurationVar(&o.RecordTimeout, "record-timeout", 5*time.Second, "longest wait to record a delivery in Temporal before answering 503 (forges give a hook about 10s)")
	f.BoolVar(&o.AllowDeprovision, "allow-deprovision", false, "let a deleted instance folder (or, with --commit-ops deprovision, a [slipway][deprovision] line) deprovision (final)")
	sf.add(serve)
	serve.PreRunE = sf.check
	cmd.AddCommand(serve)
	return cmd
}

// webhookSecretEnv and webhookSecretFlag name each forge endpoint's own secret setting.
var (
	webhookSecretEnv  = map[string]string{"github": "SLIPWAY_WEBHOOK_GITHUB_SECRET", "gitlab": "SLIPWAY_WEBHOOK_GITLAB_TOKEN", "gitea": "SLIPWAY_WEBHOOK_GITEA_SECRET"}
	webhookSecretFlag = map[string]string{"github": "github-secret-file", "gitlab": "gitlab-token-file", "gitea": "gitea-secret-file"}
)

// webhookForges reads each forge's secret and allowed repositories; a forge with no secret is not
// served. The one shared secret of earlier versions is refused, naming what replaces it.
func webhookForges(oldSecretFile string, secretFiles, repos map[string]*string) (map[string]webhook.ForgeOptions, error) {
	perForge := fmt.Sprintf("set %s, %s and/or %s (or --%s, --%s, --%s)",
		webhookSecretEnv["github"], webhookSecretEnv["gitlab"], webhookSecretEnv["gitea"],
		webhookSecretFlag["github"], webhookSecretFlag["gitlab"], webhookSecretFlag["gitea"])
	switch {
	case oldSecretFile != "":
		return nil, usageErr("--secret-file: one secret for every forge is no longer accepted (GitLab sends its token in plain text, so it must not be an HMAC key): %s", perForge)
	case os.Getenv("SLIPWAY_WEBHOOK_SECRET") != "":
		return nil, usageErr("SLIPWAY_WEBHOOK_SECRET: one secret for every forge is no longer accepted (GitLab sends its token in plain text, so it must not be an HMAC key): %s", perForge)
	}
	kind := strings.ToLower(os.Getenv("SLIPWAY_FORGE"))
	if kind == "forgejo" {
		kind = "gitea"
	}
	out := map[string]webhook.ForgeOptions{}
	for _, p := range webhook.Providers {
		secret, from := os.Getenv(webhookSecretEnv[p]), webhookSecretEnv[p]
		if file := *secretFiles[p]; file != "" {
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, usageErr("--%s: %v", webhookSecretFlag[p], err)
			}
			secret, from = strings.TrimSpace(string(data)), "--"+webhookSecretFlag[p]
			if secret == "" {
				return nil, usageErr("--%s: %s is empty", webhookSecretFlag[p], file)
			}
		}
		list, flag := *repos[p], "--"+p+"-repos"
		if list == "" && kind == p {
			list, flag = os.Getenv("SLIPWAY_FORGE_REPO"), "SLIPWAY_FORGE_REPO"
		}
		if secret == "" {
			if *repos[p] != "" {
				return nil, usageErr("--%s-repos: the %s endpoint has no secret: set %s or --%s", p, p, webhookSecretEnv[p], webhookSecretFlag[p])
			}
			continue
		}
		fo := webhook.ForgeOptions{Secret: []byte(secret)}
		for _, r := range strings.Split(list, ",") {
			if r = strings.TrimSpace(r); r != "" {
				if err := webhook.CheckRepo(r); err != nil {
					return nil, usageErr("%s: %v", flag, err)
				}
				fo.Repos = append(fo.Repos, r)
			}
		}
		if len(fo.Repos) == 0 {
			return nil, usageErr("--%s-repos: %s serves %s deliveries, but no repository is allowed: name the GitOps repository (or set SLIPWAY_FORGE=%s and SLIPWAY_FORGE_REPO)", p, from, p, p)
		}
		out[p] = fo
	}
	if len(out) == 0 {
		return nil, usageErr("no webhook secret: %s; unsigned deliveries are never accepted", perForge)
	}
	if gl, ok := out["gitlab"]; ok {
		for _, p := range []string{"github", "gitea"} {
			if f, ok := out[p]; ok && string(f.Secret) == string(gl.Secret) {
				return nil, usageErr("%s: it is the %s secret too: GitLab sends its token in plain text, so give it one of its own", webhookSecretEnv["gitlab"], p)
			}
		}
	}
	return out, nil
}

// parseCommitOps reads --commit-ops; deprovision there also needs --allow-deprovision.
func parseCommitOps(list string, allowDeprovision bool) ([]lifecycle.Operation, error) {
	ops := []lifecycle.Operation{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		op, ok := lifecycle.ParseOperation(name)
		if !ok {
			return nil, usageErr("--commit-ops: %q is not an operation (one of create, deploy, plan, archive, destroy, deprovision)", name)
		}
		if op == lifecycle.OpDeprovision && !allowDeprovision {
			return nil, usageErr("--commit-ops: deprovision also needs --allow-deprovision (it is final)")
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// webhookMaxBody is the webhook handler's own default limit (webhook.Options.MaxBody): the
// HTTP server reads a body in full before the handler runs, so it reads no more than that.
const webhookMaxBody = 1 << 20

// serve runs h on listen with the network-facing settings until ctx ends.
func (g *globals) serve(ctx context.Context, listen string, h http.Handler, sf *serveFlags, zl *zap.Logger) error {
	srv, err := sf.server(zl, httpserve.WithMaxBodyBytes(webhookMaxBody))
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
