package fakegithub

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// signJWT builds an app JWT by hand (not with the client's library), so the fake's check is
// tested against the format GitHub documents.
func signJWT(t *testing.T, key *rsa.PrivateKey, alg string, claims map[string]any) string {
	t.Helper()
	seg := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signing := seg(map[string]string{"alg": alg, "typ": "JWT"}) + "." + seg(claims)
	if key == nil {
		return signing + "."
	}
	digest := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	require.NoError(t, err)
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func appClaims(id int64, iat, exp time.Time) map[string]any {
	return map[string]any{"iss": fmt.Sprint(id), "iat": iat.Unix(), "exp": exp.Unix()}
}

type tokenAnswer struct {
	status    int
	Message   string
	Token     string
	ExpiresAt time.Time `json:"expires_at"`
}

func askToken(t *testing.T, s *Server, installation int64, auth string) tokenAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("%sapp/installations/%d/access_tokens", s.URL, installation), nil)
	require.NoError(t, err)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var a tokenAnswer
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	a.status = resp.StatusCode
	return a
}

func getMain(t *testing.T, s *Server, auth string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.URL+"repos/o/r/git/ref/heads/main", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", auth)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func TestAnAppsJWTGetsAnInstallationToken(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	a := s.AddApp(t)
	now := time.Now()
	jwt := signJWT(t, a.Key, "RS256", appClaims(a.ID, now.Add(-30*time.Second), now.Add(9*time.Minute)))
	got := askToken(t, s, a.InstallationID, "Bearer "+jwt)
	require.Equal(t, http.StatusCreated, got.status, got.Message)
	assert.True(t, strings.HasPrefix(got.Token, "ghs_"), got.Token)
	assert.WithinDuration(t, now.Add(DefaultInstallationTokenTTL), got.ExpiresAt, time.Minute)
	assert.Equal(t, 1, s.InstallationTokensIssued())
	// GitHub takes the installation token with either scheme; the JWT itself reaches no repository.
	assert.Equal(t, http.StatusOK, getMain(t, s, "token "+got.Token))
	assert.Equal(t, http.StatusOK, getMain(t, s, "Bearer "+got.Token))
	assert.Equal(t, http.StatusUnauthorized, getMain(t, s, "Bearer "+jwt))
}

// Each forged or out-of-window JWT is refused with 401 (404 for an installation of another
// app), and no token is issued.
func TestABadJWTIsRefused(t *testing.T) {
	s := New(t)
	a, other := s.AddApp(t), s.AddApp(t)
	now := time.Now()
	good := appClaims(a.ID, now.Add(-30*time.Second), now.Add(5*time.Minute))
	cases := map[string]struct {
		auth   string
		inst   int64
		status int
	}{
		"no header":            {"", a.InstallationID, http.StatusUnauthorized},
		"the PAT":              {"Bearer " + s.Token, a.InstallationID, http.StatusUnauthorized},
		"another app's key":    {"Bearer " + signJWT(t, other.Key, "RS256", good), a.InstallationID, http.StatusUnauthorized},
		"iss of another app":   {"Bearer " + signJWT(t, a.Key, "RS256", appClaims(other.ID, now, now.Add(time.Minute))), other.InstallationID, http.StatusUnauthorized},
		"unknown iss":          {"Bearer " + signJWT(t, a.Key, "RS256", appClaims(999999, now, now.Add(time.Minute))), a.InstallationID, http.StatusUnauthorized},
		"alg none":             {"Bearer " + signJWT(t, nil, "none", good), a.InstallationID, http.StatusUnauthorized},
		"HS256":                {"Bearer " + signJWT(t, a.Key, "HS256", good), a.InstallationID, http.StatusUnauthorized},
		"expired":              {"Bearer " + signJWT(t, a.Key, "RS256", appClaims(a.ID, now.Add(-11*time.Minute), now.Add(-time.Minute))), a.InstallationID, http.StatusUnauthorized},
		"exp too far":          {"Bearer " + signJWT(t, a.Key, "RS256", appClaims(a.ID, now, now.Add(time.Hour))), a.InstallationID, http.StatusUnauthorized},
		"iat in the future":    {"Bearer " + signJWT(t, a.Key, "RS256", appClaims(a.ID, now.Add(5*time.Minute), now.Add(8*time.Minute))), a.InstallationID, http.StatusUnauthorized},
		"tampered claims":      {"Bearer " + tamper(signJWT(t, a.Key, "RS256", good), appClaims(other.ID, now, now.Add(time.Minute))), a.InstallationID, http.StatusUnauthorized},
		"other installation":   {"Bearer " + signJWT(t, a.Key, "RS256", good), other.InstallationID, http.StatusNotFound},
		"unknown installation": {"Bearer " + signJWT(t, a.Key, "RS256", good), 1, http.StatusNotFound},
	}
	for name, tc := range cases {
		got := askToken(t, s, tc.inst, tc.auth)
		assert.Equal(t, tc.status, got.status, name)
		assert.NotEmpty(t, got.Message, name)
		assert.Empty(t, got.Token, name)
	}
	assert.Zero(t, s.InstallationTokensIssued())
}

// tamper swaps a signed JWT's claims for others, keeping the signature.
func tamper(jwt string, claims map[string]any) string {
	parts := strings.Split(jwt, ".")
	b, _ := json.Marshal(claims)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(b) + "." + parts[2]
}

func TestAnExpiredInstallationTokenIsRefused(t *testing.T) {
	s := New(t)
	s.AddRepo("o", "r", "main")
	a := s.AddApp(t)
	s.SetInstallationTokenTTL(30 * time.Second)
	now := time.Now()
	got := askToken(t, s, a.InstallationID, "Bearer "+signJWT(t, a.Key, "RS256", appClaims(a.ID, now, now.Add(time.Minute))))
	require.Equal(t, http.StatusCreated, got.status, got.Message)
	assert.WithinDuration(t, now.Add(30*time.Second), got.ExpiresAt, 2*time.Second)
	require.Equal(t, http.StatusOK, getMain(t, s, "token "+got.Token))
	s.ExpireInstallationTokens()
	assert.Equal(t, http.StatusUnauthorized, getMain(t, s, "token "+got.Token))
}
