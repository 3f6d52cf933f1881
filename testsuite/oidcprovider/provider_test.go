package oidcprovider_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"

	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// claims decodes a JWT's payload without verifying it: the harness's own sanity check only
// (internal/identity's tests verify tokens).
func claims(t *testing.T, jwt string) map[string]any {
	t.Helper()
	parts := strings.Split(jwt, ".")
	require.Len(t, parts, 3)
	data, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var c map[string]any
	require.NoError(t, json.Unmarshal(data, &c))
	return c
}

func TestSignInThroughTheRealPages(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	ctx := context.Background()

	begin := time.Now()
	tok, err := p.SignIn(ctx, "alice", oidcprovider.Password("alice"))
	require.NoError(t, err)
	t.Logf("SignIn (authorize, login page, consent page, code exchange) took %v", time.Since(begin).Round(time.Millisecond))
	require.NotEmpty(t, tok.RefreshToken)
	id := claims(t, tok.IDToken)
	require.Equal(t, p.Issuer, id["iss"])
	require.Equal(t, p.ClientID, id["aud"])
	require.Equal(t, "alice", id["preferred_username"])
	require.Equal(t, []any{"tenant:acme"}, id["groups"])
	require.Equal(t, []any{"default:read"}, id["permissions"])
	at := claims(t, tok.AccessToken)
	require.Equal(t, oidcprovider.Resource, at["aud"])
	require.Equal(t, []any{"default:read"}, at["permissions"])

	_, err = p.SignIn(ctx, "alice", "wrong")
	require.ErrorContains(t, err, "Invalid username or password")
	_, err = p.SignIn(ctx, "nobody", "x")
	require.ErrorContains(t, err, "Invalid username or password")

	// The refresh token gives a new ID token.
	fresh, err := p.OAuth2Config().TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
	require.NoError(t, err)
	again, err := oidcprovider.TokensFrom(fresh)
	require.NoError(t, err)
	require.Equal(t, "alice", claims(t, again.IDToken)["preferred_username"])
}

func TestServiceClientsGetWriteTokens(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{ClientPermissions: map[string][]string{"slipway-server": {"default:write", "temporal-system:admin"}}})
	for _, id := range oidcprovider.ServiceClients {
		tok, err := p.ServiceToken(context.Background(), id)
		require.NoError(t, err, id)
		c := claims(t, tok.AccessToken)
		want := []any{"default:write"}
		if id == "slipway-server" {
			want = append(want, "temporal-system:admin")
		}
		require.Equal(t, want, c["permissions"], id)
		require.Equal(t, oidcprovider.Resource, c["aud"], id)
		require.Equal(t, id, c["sub"], id)
	}
	bad := p.ServiceConfig("slipway-worker")
	bad.ClientSecret = "guessed"
	_, err := bad.Token(context.Background())
	require.ErrorContains(t, err, "invalid_client")
}

func TestDeviceFlowThroughTheRealPages(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	ctx := context.Background()
	cfg := p.OAuth2Config()
	da, err := cfg.DeviceAuth(ctx)
	require.NoError(t, err)
	require.NoError(t, p.Browser().ApproveDevice(ctx, da.VerificationURI, da.UserCode, "carol", oidcprovider.Password("carol")))
	tok, err := cfg.DeviceAccessToken(ctx, da)
	require.NoError(t, err)
	got, err := oidcprovider.TokensFrom(tok)
	require.NoError(t, err)
	require.Equal(t, []any{"platform-admins"}, claims(t, got.IDToken)["groups"])

	// A wrong code is refused on the page.
	err = p.Browser().ApproveDevice(ctx, da.VerificationURI, "BCDF-GHJK", "carol", oidcprovider.Password("carol"))
	require.ErrorContains(t, err, "incorrect")
}
