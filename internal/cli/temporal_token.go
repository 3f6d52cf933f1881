package cli

import (
	"context"
	"errors"
	"os"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/identity"
)

// personToken is the Temporal credential of the person signed in (slipway login, the profile
// resolveProfile picks from flag): the access token of the cached sign-in, refreshed with it. A
// server with authorization on gives people read access with it. nil when a service
// credential is configured (SLIPWAY_TEMPORAL_*, TEMPORAL_API_KEY) or nobody is signed in:
// the embedded dev server needs none.
func personToken(flag string) (client.TokenFunc, error) {
	if tok, err := client.TokenFromEnv(os.Getenv); tok != nil || err != nil {
		return nil, err
	}
	if os.Getenv("TEMPORAL_API_KEY") != "" {
		return nil, nil
	}
	profile, err := resolveProfile(flag).checked()
	if err != nil {
		return nil, err
	}
	t, err := identity.LoadToken(profile)
	var nsi *identity.NotSignedInError
	switch {
	case errors.As(err, &nsi):
		return nil, nil
	case err != nil:
		return nil, err
	case t.AccessToken == "":
		return nil, nil
	}
	return func(ctx context.Context) (string, error) {
		t, err := identity.CachedTokenContext(ctx, profile)
		if err != nil {
			return "", err
		}
		return t.AccessToken, nil
	}, nil
}
