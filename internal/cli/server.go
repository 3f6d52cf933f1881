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
It also reads secrets for the people the policy lets (operation "secrets"), from the store the
workers use (--store-pg-conn, else --state-dir), and answers GET /v1/whoami. It answers only to
its own addresses in the Host header (and localhost on loopback), the --listen host and the
--allowed-host names. Beyond loopback it needs --tls-cert: bearer tokens never cross a network in
plain text. The policy is SLIPWAY_POLICY_DIR's, else the embedded default, as the workers'.`,
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
				Authorize: policyAuthorize(engine),
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
	f.StringVar(&pgConn, "store-pg-conn", envOr("SLIPWAY_STORE_PG_CONN", os.Getenv("SLIPWAY_TF_PG_CONN")), "the workers' shared store, for secrets (SLIPWAY_STORE_PG_CONN)")
	f.StringVar(&stateDir, "state-dir", envOr("SLIPWAY_STATE_DIR", localdirs.DevState()), "a single worker's state dir, for secrets when there is no shared store (SLIPWAY_STATE_DIR)")
	sf.add(cmd)
	cmd.PreRunE = sf.check
	return cmd
}

// policyAuthorize decides the server's own requests with the platform's policy. A request over
// many instances (a drift sweep, a rollout) names instance "*", and tenant "*" when its scope
// names none: the default policy lets only platform admins act on every tenant.
func policyAuthorize(e *policy.Engine) apiserver.Authorize {
	return func(ctx context.Context, c apiserver.Check) (bool, string, string, error) {
		in := policy.Input{Actor: c.Actor, Operation: c.Operation, Tenant: orStar(c.Tenant), Name: orStar(c.Name), State: c.State,
			NextState: c.NextState, Stack: policy.Stack{Name: c.Stack}, Instances: c.Instances, Request: c.Request}
		d, err := e.Decide(ctx, in)
		if err != nil {
			return false, "", e.Hash(), err
		}
		if d.Allow && d.Approval != nil && !c.Waits {
			// Nothing waits for an approval here: a request that needs one is refused, saying so.
			return false, "needs approval by " + strings.Join(d.Approval.Groups, ", ") + ", which this request cannot wait for: " + d.Reason, d.PolicyHash, nil
		}
		return d.Allow, d.Reason, d.PolicyHash, nil
	}
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}
