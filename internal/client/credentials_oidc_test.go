package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

// claimsOf is a JWT's payload (the provider signed it; the Temporal server checks that).
func claimsOf(t *testing.T, jwt string) map[string]any {
	t.Helper()
	parts := strings.Split(jwt, ".")
	require.Len(t, parts, 3, "a JWT access token")
	data, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var c map[string]any
	require.NoError(t, json.Unmarshal(data, &c))
	return c
}

func serviceEnv(p *oidcprovider.Provider, id, secret string) func(string) string {
	return envOf(map[string]string{EnvTokenURL: p.TokenURL, EnvClientID: id, EnvClientSecret: secret})
}

// A component's credential is a client credentials grant at the real provider: a JWT access
// token for Temporal with the component's permissions, kept until it nears expiry.
func TestClientCredentialsFromTheProvider(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	ctx := context.Background()
	tok, err := TokenFromEnv(serviceEnv(p, "slipway-worker", p.ClientSecret("slipway-worker")))
	require.NoError(t, err)
	first, err := tok(ctx)
	require.NoError(t, err)
	c := claimsOf(t, first)
	assert.Equal(t, []any{"default:write"}, c["permissions"])
	assert.Equal(t, oidcprovider.Resource, c["aud"])
	assert.Equal(t, "slipway-worker", c["client_id"])
	again, err := tok(ctx)
	require.NoError(t, err)
	assert.Equal(t, first, again, "a token good for minutes is reused, not fetched per call")

	bad, err := TokenFromEnv(serviceEnv(p, "slipway-worker", "not-the-secret"))
	require.NoError(t, err, "the secret is only checked by the provider")
	_, err = bad(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "slipway-worker")
	assert.Contains(t, err.Error(), p.TokenURL)
	assert.Contains(t, err.Error(), "invalid_client")
}

// A token about to expire is replaced before it is sent: the server never sees an expired one.
func TestClientCredentialsAreFetchedAgainNearExpiry(t *testing.T) {
	// One second: always within the refresh margin, so every call gets a fresh token.
	p := oidcprovider.Start(t, oidcprovider.Options{AccessTokenTTL: time.Second})
	ctx := context.Background()
	tok, err := TokenFromEnv(serviceEnv(p, "slipway-webhook", p.ClientSecret("slipway-webhook")))
	require.NoError(t, err)
	first, err := tok(ctx)
	require.NoError(t, err)
	second, err := tok(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, claimsOf(t, first)["jti"], claimsOf(t, second)["jti"], "a new token, not the expiring one")
}
