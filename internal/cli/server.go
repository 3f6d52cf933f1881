package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/codec"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/health"
	"github.com/slipway-dev/slipway/internal/httpserve"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/localdirs"
	"github.com/slipway-dev/slipway/internal/logging"
	"github.com/slipway-dev/slipway/internal/policy"
)

// apiMaxBody bounds an API request: the largest is an instance file in a create or deploy.
const apiMaxBody = 1 << 20

func (g *globals) serverCmd() *cobra.Command {
	var listen, issuer, clientID, groupsClaim, stateDir, pgConn string
	var hosts []string
	var sf serveFlags
	cmd := &cobra.Command{
		Use:   "server [--listen 127.0.0.1:8090] --issuer URL --client-id ID",
		Short: "Serve the API people's CLI requests go through, as the person their OpenID Connect token names",
		Long: `People never hold slipway's key: their changes go through this server. Every request carries
"Authorization: Bearer <ID token>" (slipway login caches one; the CLI sends it with --server). The
server verifies the token against the identity provider (--issuer, SLIPWAY_OIDC_ISSUER; audience
--client-id, SLIPWAY_OIDC_CLIENT_ID), then sends the request to Temporal attested as that person,
so the workers' policy decides on who really asked. A request with no token, or an expired or
foreign one, is answered 401; a policy's deny 403 with its reason (the CLI exits 3 on both).
It answers people's reads (status, events, plan, list, audit, drift list, rollout plan) with only
the tenants the policy lets them read (operation "read"), reads secrets for the people the policy
lets (operation "secrets") from the store the workers use (--store-pg-conn, else --state-dir),
answers GET /v1/whoami and GET /v1/openapi.json (its API's description), and serves a tenant's
page at /ui/ that signs in with the same provider (authorization code with PKCE; register
<server>/ui/ as a redirect URI of the client). It answers only to its own addresses in the Host header (and
localhost on loopback), the --listen host and the --allowed-host names. Beyond loopback it needs
--tls-cert: bearer tokens never cross a network in plain text. The policy is SLIPWAY_POLICY_DIR's, else the embedded default, as the workers'.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, _, err := net.SplitHostPort(listen); err != nil {
				return usageErr("--listen: %q: %v", listen, err)
			}
			if sf.tlsCert == "" && !loopback(listen) {
				return usageErr("--listen: listening beyond loopback on %s would carry bearer tokens in plain text: give --tls-cert and --tls-key", listen)
			}
			switch {
			case issuer == "":
				return usageErr("--issuer: the OpenID Connect issuer whose tokens to accept (or SLIPWAY_OIDC_ISSUER)")
			case clientID == "":
				return usageErr("--client-id: the client ID the tokens are issued for (or SLIPWAY_OIDC_CLIENT_ID)")
			}
			for _, h := range hosts {
				if err := checkHostName(h); err != nil {
					return usageErr("--allowed-host: %q: %v", h, err)
				}
			}
			engine, err := policy.FromEnv()
			if err != nil {
				return usageErr("SLIPWAY_POLICY_DIR: %v", err)
			}
			zl, err := logging.New(logging.LevelFromEnv("info"))
			if err != nil {
				return usageErr("%v", err)
			}
			defer func() { _ = zl.Sync() }()
			srv, err := sf.server(zl, httpserve.WithMaxBodyBytes(apiMaxBody))
			if err != nil {
				return err
			}
			if err := identity.CheckIssuerURL(issuer); err != nil {
				return usageErr("--issuer: %v", err)
			}
			// The server attests requests as the people it verified: without slipway's key they count for nothing.
			keys, err := attest.Load()
			if err != nil {
				return usageErr("the server signs requests for the people it verifies and needs slipway's key: %v", err)
			}
			ver, err := identity.NewVerifier(cmd.Context(), issuer, clientID, identity.WithGroupsClaim(groupsClaim))
			if err != nil {
				return fmt.Errorf("--issuer %s: %w", issuer, err)
			}
			tel, err := newServerTelemetry("slipway-server")
			if err != nil {
				return err
			}
			c, err := client.DialLazy(g.taskQueue, g.connect(append(tracingOptions(), tel.clientOption(), client.WithLogger(logging.NewTemporal(zl)), client.WithAttestation(keys),
				client.WithIdentity(identity.Actor{Kind: identity.Service, Issuer: "slipway", Name: "server", Via: "api"}))...)...)
			if err != nil {
				return err
			}
			defer c.Close()
			tel.health.Add("temporal", health.Temporal(c.Temporal))
			if pgConn != "" {
				check, closeStore, err := health.PostgreSQL(pgConn)
				if err != nil {
					return usageErr("--store-pg-conn: %v", err)
				}
				defer closeStore()
				tel.health.Add("store", check)
			}
			auditLog, closeAudit, err := openAuditLog(cmd.Context(), pgConn, stateDir, true)
			if err != nil {
				return err
			}
			defer closeAudit()
			c.AuditLog = auditLog
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return fmt.Errorf("--listen: %w", err)
			}
			allowed := append(codec.ListenerHosts(ln.Addr()), hosts...)
			if host, _, _ := net.SplitHostPort(listen); host != "" && net.ParseIP(host) == nil {
				allowed = append(allowed, host)
			}
			api, err := apiserver.New(apiserver.Options{
				Verifier: ver, Client: c, Hosts: allowed, AcceptTimeout: g.accept, Logger: zl,
				// The tenant's page signs in as the CLI does: the same client, its scopes but offline access.
				UI:        &apiserver.UI{Issuer: issuer, ClientID: clientID, Scopes: strings.TrimSpace(strings.ReplaceAll(envOr(envOIDCScopes, defaultOIDCScopes), "offline_access", ""))},
				Authorize: apiserver.PolicyAuthorize(engine), Windows: engine.Windows(),
				Audit: func(ctx context.Context, e contract.AuditEntry) error {
					return appendServerAudit(ctx, auditLog, e)
				},
				Secrets: func(ctx context.Context, tenant, name string) (map[string]string, error) {
					vals, _, err := readSecrets(ctx, pgConn, stateDir, tenant, name)
					return vals, err
				},
			})
			if err != nil {
				_ = ln.Close()
				return err
			}
			g.printf("slipway server on %s://%s (issuer %s, client %s, policy %s)\n", srv.Scheme(), ln.Addr(), issuer, clientID, shortSHA(engine.Hash()))
			return srv.Serve(cmd.Context(), ln, tel.front(cmd.Context(), api))
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:8090", "address to listen on; beyond loopback it needs --tls-cert")
	f.StringVar(&issuer, "issuer", os.Getenv(envOIDCIssuer), "the OpenID Connect issuer whose ID tokens are accepted (SLIPWAY_OIDC_ISSUER)")
	f.StringVar(&clientID, "client-id", envOr(envOIDCClientID, defaultOIDCClientID), "the audience the ID tokens must name: the CLI's client ID (SLIPWAY_OIDC_CLIENT_ID)")
	f.StringVar(&groupsClaim, "groups-claim", envOr(envOIDCGroupsClaim, identity.DefaultGroupsClaim), "the ID token claim holding the person's groups ("+envOIDCGroupsClaim+")")
	f.StringArrayVar(&hosts, "allowed-host", nil, "a name it is reached by, beyond its own addresses (a proxy's or DNS name; repeat for more)")
	f.StringVar(&pgConn, "store-pg-conn", envOr("SLIPWAY_STORE_PG_CONN", os.Getenv("SLIPWAY_TF_PG_CONN")), "the workers' shared store, for secrets and the audit log (SLIPWAY_STORE_PG_CONN)")
	f.StringVar(&stateDir, "state-dir", envOr("SLIPWAY_STATE_DIR", localdirs.DevState()), "a single worker's state dir, for secrets and the audit log when there is no shared store (SLIPWAY_STATE_DIR)")
	sf.add(cmd)
	cmd.PreRunE = sf.check
	return cmd
}
