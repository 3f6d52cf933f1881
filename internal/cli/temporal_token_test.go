package cli

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/client"
	"github.com/slipway-dev/slipway/internal/identity"
)

func clearTemporalCredentials(t *testing.T) {
	for _, v := range []string{client.EnvTokenURL, client.EnvClientID, client.EnvClientSecret, client.EnvTokenFile,
		"TEMPORAL_API_KEY", identity.EnvProfile, "TEMPORAL_PROFILE"} {
		t.Setenv(v, "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
}

// A person's reads carry the access token of their cached sign-in; nobody signed in sends none.
func TestPersonTokenIsTheCachedSignInsAccessToken(t *testing.T) {
	clearTemporalCredentials(t)
	tok, err := personToken("")
	require.NoError(t, err)
	assert.Nil(t, tok, "not signed in: no credential (the embedded dev server needs none)")

	exp := time.Now().Add(time.Hour)
	require.NoError(t, identity.SaveToken("ops", identity.Token{Issuer: "https://idp.example.com", ClientID: "slipway-cli",
		IDToken: "id-token", AccessToken: "access-token", Expiry: exp, AccessTokenExpiry: exp}))
	tok, err = personToken("")
	require.NoError(t, err)
	assert.Nil(t, tok, "another profile's sign-in is not used")

	t.Setenv(identity.EnvProfile, "ops")
	tok, err = personToken("")
	require.NoError(t, err)
	require.NotNil(t, tok)
	got, err := tok(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "access-token", got, "the access token (audience Temporal), not the ID token")

	// A component's own credential wins over a person's sign-in on the same machine.
	t.Setenv(client.EnvTokenFile, "/run/secrets/temporal-token")
	tok, err = personToken("")
	require.NoError(t, err)
	assert.Nil(t, tok)

	t.Setenv(client.EnvTokenFile, "")
	t.Setenv(identity.EnvProfile, "no such/profile")
	_, err = personToken("")
	var ex *exitError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, ExitUsage, ex.code)
	assert.Contains(t, err.Error(), identity.EnvProfile)
}
