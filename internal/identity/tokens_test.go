package identity_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// cached signs user in at p and caches it as profile, as `slipway login` does.
func cached(t *testing.T, p *oidcprovider.Provider, profile, user string) identity.Token {
	t.Helper()
	tok := signIn(t, p, user)
	exp, err := identity.Expiry(tok.IDToken)
	require.NoError(t, err)
	ct := identity.Token{Issuer: p.Issuer, ClientID: p.ClientID, IDToken: tok.IDToken, AccessToken: tok.AccessToken,
		RefreshToken: tok.RefreshToken, Expiry: exp, AccessTokenExpiry: tok.Expiry.UTC(), Name: user,
		Endpoints: identity.Endpoints{Token: p.TokenURL, Revocation: p.Issuer + "/token/revocation"}}
	require.NoError(t, identity.SaveToken(profile, ct))
	return ct
}

func TestTokenCacheIsPerProfileAndPrivate(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := oidcprovider.Start(t, oidcprovider.Options{})
	alice := cached(t, p, "default", "alice")
	carol := cached(t, p, "admin", "carol")

	path, err := identity.TokensPath()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "slipway", "tokens.json"), path)
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	got, err := identity.CachedToken("default")
	require.NoError(t, err)
	require.Equal(t, alice.IDToken, got.IDToken, "a fresh token is not refreshed")
	got, err = identity.CachedToken("admin")
	require.NoError(t, err)
	require.Equal(t, carol.IDToken, got.IDToken)

	_, err = identity.CachedToken("ci")
	require.ErrorIs(t, err, identity.ErrNotSignedIn)
	require.ErrorContains(t, err, `not signed in (profile "ci")`)
	require.ErrorContains(t, err, "run slipway login --profile ci")

	_, ok, err := identity.ForgetToken("default")
	require.NoError(t, err)
	require.True(t, ok)
	_, err = identity.CachedToken("default")
	require.ErrorIs(t, err, identity.ErrNotSignedIn)
	_, err = identity.CachedToken("admin")
	require.NoError(t, err, "forgetting one profile keeps the others")

	require.Error(t, identity.CheckProfile("../etc"))
	_, err = identity.LoadToken("a/b")
	require.ErrorContains(t, err, "profile")
}

// A token near expiry is refreshed at the real provider with the refresh token; the new ID
// token verifies, and the spent refresh token (rotated) no longer works.
func TestCachedTokenRefreshes(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	// Shorter than RefreshBefore: every read refreshes.
	p := oidcprovider.Start(t, oidcprovider.Options{IDTokenTTL: 30 * time.Second})
	before := cached(t, p, "default", "bob")
	// iat has second precision: make the refreshed token differ.
	time.Sleep(time.Until(before.Expiry.Add(-30 * time.Second).Add(1100 * time.Millisecond)))

	after, err := identity.CachedToken("default")
	require.NoError(t, err)
	require.NotEqual(t, before.IDToken, after.IDToken)
	require.NotEqual(t, before.RefreshToken, after.RefreshToken, "oidc-provider rotates a public client's refresh token")
	require.True(t, after.Expiry.After(before.Expiry))
	a, err := verifier(t, p).Verify(context.Background(), after.IDToken)
	require.NoError(t, err)
	require.Equal(t, "bob", a.Name)
	require.Equal(t, []string{"tenant:other"}, a.Groups)

	again, err := identity.LoadToken("default")
	require.NoError(t, err)
	require.Equal(t, after, again, "the refreshed token is cached")

	// The spent refresh token is refused; refreshing with it is a clear "not signed in".
	_, err = identity.Refresh(context.Background(), before)
	require.ErrorIs(t, err, identity.ErrNotSignedIn)
	require.ErrorContains(t, err, "refused the refresh token")
}

// Revocation at the real provider: the refresh token stops working.
func TestRevokeEndsTheRefreshToken(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	p := oidcprovider.Start(t, oidcprovider.Options{})
	tok := cached(t, p, "default", "alice")
	revoked, err := identity.Revoke(context.Background(), tok)
	require.NoError(t, err)
	require.True(t, revoked)
	_, err = identity.Refresh(context.Background(), tok)
	require.ErrorIs(t, err, identity.ErrNotSignedIn)

	// CachedToken drops a sign-in whose refresh the provider refuses.
	tok.Expiry = time.Now().Add(-time.Second)
	require.NoError(t, identity.SaveToken("default", tok))
	_, err = identity.CachedToken("default")
	require.ErrorIs(t, err, identity.ErrNotSignedIn)
	_, err = identity.LoadToken("default")
	require.ErrorIs(t, err, identity.ErrNotSignedIn, "the dead sign-in is forgotten")
}
