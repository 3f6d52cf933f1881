package github

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/forgetest"
	"github.com/slipway-dev/slipway/testsuite/fakegithub"
)

// newAppFake starts a fake GitHub with acme/gitops on main and a forge over it that
// authenticates as the installation of a GitHub App, with the key file GitHub hands out.
func newAppFake(t *testing.T) (*Forge, *fakegithub.Server) {
	t.Helper()
	srv := fakegithub.New(t)
	srv.AddRepo(testOwner, testRepo, "main")
	app := srv.AddApp(t)
	key, err := os.ReadFile(app.KeyFile)
	require.NoError(t, err)
	f, err := New(testOwner, testRepo, WithBaseURL(srv.URL), WithApp(app.ID, app.InstallationID, key))
	require.NoError(t, err)
	return f, srv
}

func TestContractWithAppAuth(t *testing.T) {
	forgetest.Contract(t, func(t *testing.T) forge.Forge {
		f, _ := newAppFake(t)
		return f
	})
}

// One installation token serves every call until it nears its expiry.
func TestAppTokenIsReusedWhileValid(t *testing.T) {
	f, srv := newAppFake(t)
	for range 3 {
		_, err := f.Head(context.Background())
		require.NoError(t, err)
	}
	assert.Equal(t, 1, srv.InstallationTokensIssued())
	assert.Equal(t, 1, srv.Calls("POST /app/installations/{installation_id}/access_tokens"))
}

// A token within a minute of its expiry is replaced before use: after the first token has
// expired on the server, the next call fetches a second one and succeeds.
func TestAppTokenIsRefreshedBeforeItExpires(t *testing.T) {
	f, srv := newAppFake(t)
	srv.SetInstallationTokenTTL(30 * time.Second) // inside the refresh margin from the start
	_, err := f.Head(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, srv.InstallationTokensIssued())
	srv.ExpireInstallationTokens()
	_, err = f.Head(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, srv.InstallationTokensIssued())
}

// The control for the test above: a token that is not near its expiry is not refreshed, so a
// server that stops taking it is what the forge sees (the fake does refuse expired tokens).
func TestAppTokenExpiredEarlyIsAnAuthError(t *testing.T) {
	f, srv := newAppFake(t)
	_, err := f.Head(context.Background())
	require.NoError(t, err)
	srv.ExpireInstallationTokens()
	_, err = f.Head(context.Background())
	var auth *AuthError
	require.True(t, errors.As(err, &auth), "got %v", err)
	assert.Equal(t, 401, auth.Status)
	assert.Contains(t, err.Error(), AppIDVar)
	assert.Equal(t, 1, srv.InstallationTokensIssued())
}

// A key that is not the app's signs JWTs GitHub refuses: the forge gets no token, makes no
// repository call, and says which settings to check; a retry cannot fix it.
func TestAppWithAnotherKeyIsRefused(t *testing.T) {
	srv := fakegithub.New(t)
	srv.AddRepo(testOwner, testRepo, "main")
	app := srv.AddApp(t)
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	key := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(other)})
	f, err := New(testOwner, testRepo, WithBaseURL(srv.URL), WithApp(app.ID, app.InstallationID, key))
	require.NoError(t, err)
	_, err = f.Head(context.Background())
	var auth *AuthError
	require.True(t, errors.As(err, &auth), "got %v", err)
	assert.Equal(t, 401, auth.Status)
	assert.Contains(t, err.Error(), "installation token refused: A JSON web token could not be decoded")
	assert.Contains(t, err.Error(), AppKeyFileVar)
	assert.True(t, forge.IsNonRetryable(err))
	assert.Zero(t, srv.InstallationTokensIssued())
	assert.Zero(t, srv.Calls("GET /repos/{owner}/{repo}/git/ref/{ref...}"))
}

// An installation the app does not have is refused (404) the same way.
func TestAppWithAnotherInstallationIsRefused(t *testing.T) {
	srv := fakegithub.New(t)
	srv.AddRepo(testOwner, testRepo, "main")
	app, other := srv.AddApp(t), srv.AddApp(t)
	key, err := os.ReadFile(app.KeyFile)
	require.NoError(t, err)
	f, err := New(testOwner, testRepo, WithBaseURL(srv.URL), WithApp(app.ID, other.InstallationID, key))
	require.NoError(t, err)
	_, err = f.Head(context.Background())
	var auth *AuthError
	require.True(t, errors.As(err, &auth), "got %v", err)
	assert.Equal(t, 404, auth.Status)
	assert.True(t, forge.IsNonRetryable(err))
}

func TestNewNamesTheBadAppSetting(t *testing.T) {
	key := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: []byte("not a key")})
	good := func() []byte {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		require.NoError(t, err)
		return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	}()
	cases := map[string]struct {
		opts  []Option
		field string
	}{
		"token and app":   {[]Option{WithToken("t"), WithApp(1, 2, good)}, TokenVar},
		"app ID":          {[]Option{WithApp(0, 2, good)}, AppIDVar},
		"installation ID": {[]Option{WithApp(1, -2, good)}, AppInstallationVar},
		"not a key":       {[]Option{WithApp(1, 2, key)}, AppKeyFileVar},
		"empty key":       {[]Option{WithApp(1, 2, nil)}, AppKeyFileVar},
	}
	for name, tc := range cases {
		_, err := New("o", "r", tc.opts...)
		var invalid *forge.InvalidError
		require.True(t, errors.As(err, &invalid), "%s: got %v", name, err)
		assert.Equal(t, tc.field, invalid.Field, name)
	}
}
