package identity_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/testsuite/oidcprovider"
)

func signIn(t *testing.T, p *oidcprovider.Provider, user string) oidcprovider.Tokens {
	t.Helper()
	tok, err := p.SignIn(context.Background(), user, oidcprovider.Password(user))
	require.NoError(t, err)
	return tok
}

func verifier(t *testing.T, p *oidcprovider.Provider, opts ...identity.VerifierOption) *identity.Verifier {
	t.Helper()
	v, err := identity.NewVerifier(context.Background(), p.Issuer, p.ClientID, opts...)
	require.NoError(t, err)
	return v
}

// People signed in at the real provider are verified into actors with their groups.
func TestVerifyPeopleFromTheRealProvider(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	v := verifier(t, p)
	for _, u := range oidcprovider.Users {
		a, err := v.Verify(context.Background(), signIn(t, p, u.Name).IDToken)
		require.NoError(t, err, u.Name)
		require.Equal(t, identity.Actor{Kind: identity.Person, Issuer: p.Issuer, Subject: "user-" + u.Name, Name: u.Name,
			Email: u.Email, Groups: u.Groups}, a)
		require.NoError(t, a.Validate())
	}

	// The groups claim is configurable: here the permissions claim stands in for a company's roles claim.
	a, err := verifier(t, p, identity.WithGroupsClaim("permissions")).Verify(context.Background(), signIn(t, p, "alice").IDToken)
	require.NoError(t, err)
	require.Equal(t, []string{"default:read"}, a.Groups)
}

// An ID token past its exp is refused, saying when it expired and what to run.
func TestVerifyRefusesAnExpiredToken(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{IDTokenTTL: time.Second})
	v := verifier(t, p)
	tok := signIn(t, p, "alice")
	exp, err := identity.Expiry(tok.IDToken)
	require.NoError(t, err)
	// Wait for the real token to expire (exp has second precision; go-oidc allows no skew).
	time.Sleep(time.Until(exp.Add(1100 * time.Millisecond)))

	_, err = v.Verify(context.Background(), tok.IDToken)
	require.ErrorIs(t, err, identity.ErrTokenExpired)
	require.EqualError(t, err, "token expired at "+exp.UTC().Format(time.RFC3339)+": run slipway login")
}

// A token from another provider (another issuer, another key) is refused as foreign, naming both issuers.
func TestVerifyRefusesAForeignToken(t *testing.T) {
	ours := oidcprovider.Start(t, oidcprovider.Options{})
	theirs := oidcprovider.Start(t, oidcprovider.Options{})
	_, err := verifier(t, ours).Verify(context.Background(), signIn(t, theirs, "carol").IDToken)
	require.ErrorIs(t, err, identity.ErrForeignIssuer)
	require.ErrorContains(t, err, theirs.Issuer)
	require.ErrorContains(t, err, ours.Issuer)
}

// The access token (audience: the Temporal frontend) is not an ID token for the CLI client.
func TestVerifyRefusesAnotherAudience(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	v := verifier(t, p)
	_, err := v.Verify(context.Background(), signIn(t, p, "alice").AccessToken)
	require.ErrorIs(t, err, identity.ErrWrongAudience)
	require.ErrorContains(t, err, oidcprovider.Resource)

	svc, err := p.ServiceToken(context.Background(), "slipway-server")
	require.NoError(t, err)
	_, err = v.Verify(context.Background(), svc.AccessToken)
	require.ErrorIs(t, err, identity.ErrWrongAudience)

	other, err := identity.NewVerifier(context.Background(), p.Issuer, "another-app")
	require.NoError(t, err)
	_, err = other.Verify(context.Background(), signIn(t, p, "alice").IDToken)
	require.ErrorIs(t, err, identity.ErrWrongAudience)
}

// The attack: alice edits her own ID token to put herself in platform-admins. The signature no
// longer matches and the token is refused.
func TestVerifyRefusesAnEditedToken(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	v := verifier(t, p)
	parts := strings.Split(signIn(t, p, "alice").IDToken, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(payload, &claims))
	claims["groups"] = []string{"platform-admins"}
	claims["preferred_username"] = "carol"
	edited, err := json.Marshal(claims)
	require.NoError(t, err)
	forged := parts[0] + "." + base64.RawURLEncoding.EncodeToString(edited) + "." + parts[2]

	a, err := v.Verify(context.Background(), forged)
	require.ErrorIs(t, err, identity.ErrBadSignature, "accepted as %v", a)
	require.True(t, a.IsZero())

	// Re-signed with "none": refused as well.
	noneHeader := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	_, err = v.Verify(context.Background(), noneHeader+"."+base64.RawURLEncoding.EncodeToString(edited)+".")
	require.Error(t, err)
	var te *identity.TokenError
	require.ErrorAs(t, err, &te)

	_, err = v.Verify(context.Background(), "not-a-jwt")
	require.ErrorIs(t, err, identity.ErrMalformedToken)
}

// A provider restarted on the same address with a new key: same issuer, and the tokens of the
// old key no longer verify.
func TestVerifyRefusesTheOldKeyAfterARestart(t *testing.T) {
	old := oidcprovider.Start(t, oidcprovider.Options{})
	tok := signIn(t, old, "alice")
	require.NoError(t, old.Close())
	restarted := oidcprovider.Start(t, oidcprovider.Options{Port: old.Port})
	require.Equal(t, old.Issuer, restarted.Issuer)
	require.NotEqual(t, old.KeyID, restarted.KeyID)

	_, err := verifier(t, restarted).Verify(context.Background(), tok.IDToken)
	require.ErrorIs(t, err, identity.ErrBadSignature)
	require.ErrorContains(t, err, "does not verify against the keys of "+restarted.Issuer)
}

// An issuer over plain http on a non-loopback host is refused before anything is fetched.
func TestNewVerifierRefusesPlainHTTP(t *testing.T) {
	_, err := identity.NewVerifier(context.Background(), "http://idp.example.com", "slipway-cli")
	require.ErrorContains(t, err, "must be https")
	_, err = identity.NewVerifier(context.Background(), "idp.example.com", "slipway-cli")
	require.ErrorContains(t, err, "not an absolute")
	_, err = identity.NewVerifier(context.Background(), "https://idp.example.com", "")
	require.ErrorContains(t, err, "client ID")
	t.Setenv(identity.EnvIssuer, "")
	_, err = identity.VerifierFromEnv(context.Background())
	require.ErrorContains(t, err, identity.EnvIssuer+": not set")
}

// VerifierFromEnv reads the issuer, client and groups claim as slipway server does.
func TestVerifierFromEnv(t *testing.T) {
	p := oidcprovider.Start(t, oidcprovider.Options{})
	t.Setenv(identity.EnvIssuer, p.Issuer)
	t.Setenv(identity.EnvClientID, "")
	t.Setenv(identity.EnvGroupsClaim, "permissions")
	v, err := identity.VerifierFromEnv(context.Background())
	require.NoError(t, err)
	require.Equal(t, identity.DefaultClientID, v.ClientID())
	a, err := v.Verify(context.Background(), signIn(t, p, "bob").IDToken)
	require.NoError(t, err)
	require.Equal(t, []string{"default:read"}, a.Groups)
}
