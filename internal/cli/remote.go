package cli

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/slipway-dev/slipway/internal/apiserver"
	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/identity"
)

// token is the ID token --server requests carry: SLIPWAY_TOKEN (for scripts and CI, as
// ARGOCD_AUTH_TOKEN), else the profile's cached sign-in.
func (g *globals) token(ctx context.Context) (string, error) {
	if t := strings.TrimSpace(os.Getenv("SLIPWAY_TOKEN")); t != "" {
		return t, nil
	}
	profile, err := resolveProfile(g.profile).checked()
	if err != nil {
		return "", err
	}
	// The cache refreshes an ID token near its expiry with the refresh token.
	t, err := identity.CachedTokenContext(ctx, profile)
	if err != nil {
		var nsi *identity.NotSignedInError
		if errors.As(err, &nsi) {
			return "", &client.RefusedError{Unauthenticated: true, Message: err.Error() + " (or set SLIPWAY_TOKEN)"}
		}
		return "", err
	}
	return t.IDToken, nil
}

// dialSigned dials Temporal for a change sent straight to it: see holdsKey.
func (g *globals) dialSigned(ctx context.Context) (*client.Client, error) {
	if err := holdsKey(); err != nil {
		return nil, err
	}
	return g.dial(ctx)
}

// holdsKey refuses at once, saying what to do, a change from a CLI that holds no slipway key: the
// worker would refuse the unsigned request anyway; only slipway's components and the dev key's
// holder act without `slipway server`.
func holdsKey() error {
	_, err := attest.Load()
	var nk *attest.NoKeyError
	if errors.As(err, &nk) {
		return &client.RefusedError{Unauthenticated: true, Message: "no slipway key here, so a change sent straight to Temporal would count for nothing: " +
			"sign in with `slipway login` and send it through `slipway server` (--server URL, or SLIPWAY_SERVER)"}
	}
	return err
}

// withSignedClient is withClient for a change: see dialSigned.
func (g *globals) withSignedClient(cmd *cobra.Command, fn func(c *client.Client) error) error {
	c, err := g.dialSigned(cmd.Context())
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(c)
}

// api is the client of `slipway server` when --server is set, else nil: the command then talks
// to Temporal itself.
func (g *globals) api() (*apiserver.Client, error) {
	if g.server == "" {
		return nil, nil
	}
	c, err := apiserver.NewClient(g.server, g.token)
	if err != nil {
		return nil, usageErr("--server: %q: %v", g.server, err)
	}
	return c, nil
}

// reader is what the read commands ask (list, events, drift list, audit): `slipway server` with
// --server, which answers with only the tenants the person may read, else Temporal.
type reader interface {
	List(ctx context.Context, f client.ListFilter) ([]client.ListItem, error)
	StackCounts(ctx context.Context, stack, tenant string) ([]client.StackCount, bool, error)
	Drifted(ctx context.Context, f client.ListFilter) ([]client.DriftItem, error)
	Audit(ctx context.Context, tenant string, since time.Time, fn func(client.AuditEntry) error) error
	Events(ctx context.Context, limit int) ([]client.DeliveryEvent, error)
	InstanceEvents(ctx context.Context, ref contract.Ref, follow bool, fn func(client.InstanceEvent) error) error
}

// withReader runs fn with the server's client when --server is set, else with a Temporal client.
func (g *globals) withReader(cmd *cobra.Command, fn func(reader) error) error {
	api, err := g.api()
	if err != nil {
		return err
	}
	if api != nil {
		return fn(api)
	}
	return g.withClient(cmd, func(c *client.Client) error { return fn(c) })
}

// followAPI waits for a request sent through the server, showing its steps from the status
// each long poll brings back, then the final state.
func (g *globals) followAPI(ctx context.Context, api *apiserver.Client, ref contract.Ref, requestID string) error {
	view := g.progressView(g.plain)
	res, err := api.Wait(ctx, ref, requestID, view.Update)
	view.Done()
	if err != nil {
		return err
	}
	return g.finish(ref.String(), res)
}

// finish prints an operation's end; a failed one exits 1.
func (g *globals) finish(ref string, res contract.OperationResult) error {
	g.printResult(ref, res)
	if res.Result == contract.ResultFailed {
		return failed
	}
	return nil
}
