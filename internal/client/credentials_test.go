package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/slipway-dev/slipway/internal/codec"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestTokenFromEnvRefusesHalfASettingNamingTheVariable(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		bad  string // the variable named; "" = fine
	}{
		{"nothing set", map[string]string{}, ""},
		{"client credentials", map[string]string{EnvTokenURL: "https://idp.example.com/token", EnvClientID: "slipway-worker", EnvClientSecret: "s"}, ""},
		{"loopback http", map[string]string{EnvTokenURL: "http://127.0.0.1:9000/token", EnvClientID: "w", EnvClientSecret: "s"}, ""},
		{"token file", map[string]string{EnvTokenFile: "/var/run/secrets/temporal/token"}, ""},
		{"no secret", map[string]string{EnvTokenURL: "https://idp.example.com/token", EnvClientID: "w"}, EnvClientSecret},
		{"no client id", map[string]string{EnvTokenURL: "https://idp.example.com/token", EnvClientSecret: "s"}, EnvClientID},
		{"no token url", map[string]string{EnvClientID: "w", EnvClientSecret: "s"}, EnvTokenURL},
		{"token url not a URL", map[string]string{EnvTokenURL: "idp.example.com/token", EnvClientID: "w", EnvClientSecret: "s"}, EnvTokenURL},
		{"secret over plain http", map[string]string{EnvTokenURL: "http://idp.example.com/token", EnvClientID: "w", EnvClientSecret: "s"}, EnvTokenURL},
		{"both kinds", map[string]string{EnvTokenFile: "/t", EnvTokenURL: "https://idp.example.com/token", EnvClientID: "w", EnvClientSecret: "s"}, EnvTokenFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := TokenFromEnv(envOf(tc.env))
			if tc.bad == "" {
				require.NoError(t, err)
				assert.Equal(t, len(tc.env) > 0, tok != nil)
				return
			}
			require.Error(t, err)
			assert.Nil(t, tok)
			var ce *CredentialsError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tc.bad, ce.Var)
			assert.Contains(t, err.Error(), tc.bad)
			assert.True(t, IsBadRequest(err), "bad settings are the caller's input (exit 2)")
		})
	}
}

func TestTokenFileIsReadAgainWhenItChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	tok, err := TokenFromEnv(envOf(map[string]string{EnvTokenFile: path}))
	require.NoError(t, err)
	_, err = tok(context.Background())
	require.ErrorContains(t, err, EnvTokenFile, "a missing file is named")

	require.NoError(t, os.WriteFile(path, []byte("first\n"), 0o600))
	got, err := tok(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "first", got)

	// A platform rotates the mounted token: the next call sends the new one.
	require.NoError(t, os.WriteFile(path, []byte("second-token\n"), 0o600))
	require.NoError(t, os.Chtimes(path, time.Now(), time.Now().Add(time.Second)))
	got, err = tok(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "second-token", got)

	require.NoError(t, os.WriteFile(path, []byte("  \n"), 0o600))
	require.NoError(t, os.Chtimes(path, time.Now(), time.Now().Add(2*time.Second)))
	_, err = tok(context.Background())
	require.ErrorContains(t, err, "is empty")
}

// The SDK turns TLS on with any API key; a loopback server speaks plaintext unless told otherwise.
func TestBearerTokenTLSFollowsTheAddressUnlessTemporalTLSSays(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("TEMPORAL_CONFIG_FILE", filepath.Join(t.TempDir(), "none.toml"))
	t.Setenv(codec.EnvKeyFile, "")
	t.Setenv(codec.EnvKey, genKey(t, "k"))
	for _, v := range []string{EnvTokenURL, EnvClientID, EnvClientSecret, EnvTokenFile, "TEMPORAL_API_KEY", "TEMPORAL_TLS", "TEMPORAL_ADDRESS"} {
		t.Setenv(v, "")
		require.NoError(t, os.Unsetenv(v))
	}
	static := WithToken(func(context.Context) (string, error) { return "t", nil })

	o, err := Options(WithHostPort("127.0.0.1:7233"), static)
	require.NoError(t, err)
	assert.True(t, o.ConnectionOptions.TLSDisabled, "loopback: no TLS")
	assert.Nil(t, o.ConnectionOptions.TLS)

	o, err = Options(WithHostPort("temporal.example.com:7233"), static)
	require.NoError(t, err)
	assert.False(t, o.ConnectionOptions.TLSDisabled, "elsewhere the SDK's TLS default stands")

	o, err = Options(WithHostPort("127.0.0.1:7233"))
	require.NoError(t, err)
	assert.Nil(t, o.Credentials, "no token configured: none sent")
	assert.False(t, o.ConnectionOptions.TLSDisabled)

	t.Setenv(EnvTokenFile, filepath.Join(t.TempDir(), "token"))
	o, err = Options(WithHostPort("localhost:7233"))
	require.NoError(t, err)
	assert.NotNil(t, o.Credentials, "SLIPWAY_TEMPORAL_TOKEN_FILE gives a credential")
	assert.True(t, o.ConnectionOptions.TLSDisabled)

	t.Setenv("TEMPORAL_TLS", "true")
	o, err = Options(WithHostPort("127.0.0.1:7233"))
	require.NoError(t, err)
	assert.False(t, o.ConnectionOptions.TLSDisabled, "TEMPORAL_TLS=true wins on loopback too")
	assert.NotNil(t, o.ConnectionOptions.TLS)

	t.Setenv(EnvClientID, "half")
	_, err = Options(WithHostPort("127.0.0.1:7233"))
	var ce *CredentialsError
	require.ErrorAs(t, err, &ce, "a half setting is refused before any connection")
}

func TestDescribeCredentialNamesTheSourceNeverTheSecret(t *testing.T) {
	env := map[string]string{EnvTokenURL: "https://idp.example.com/token", EnvClientID: "slipway-worker", EnvClientSecret: "s3cret"}
	got := DescribeCredential(envOf(env))
	assert.Equal(t, "client credentials of slipway-worker at https://idp.example.com/token", got)
	assert.NotContains(t, got, "s3cret")
	assert.Equal(t, "bearer token from /run/t", DescribeCredential(envOf(map[string]string{EnvTokenFile: "/run/t"})))
	assert.Equal(t, "none", DescribeCredential(envOf(nil)))
}

// The Temporal frontend's refusal is a refusal (exit 3), however deep the SDK wraps it.
func TestTheFrontendsPermissionDeniedIsARefusal(t *testing.T) {
	err := fmt.Errorf("failed reaching server: %w", serviceerror.NewPermissionDenied("Request unauthorized.", ""))
	assert.True(t, IsRefused(err))
	assert.False(t, IsBadRequest(err))
	assert.False(t, IsRefused(errors.New("Request unauthorized.")), "only the typed error counts")
}
