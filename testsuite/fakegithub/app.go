package fakegithub

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// GitHub's limits on an app's JWT: exp at most 10 minutes ahead, iat not in the future
// beyond the clock drift GitHub tolerates.
const (
	jwtMaxLifetime = 10 * time.Minute
	jwtClockDrift  = time.Minute
)

// DefaultInstallationTokenTTL is how long an installation token lives, as on GitHub.
const DefaultInstallationTokenTTL = time.Hour

// App is a GitHub App installed on the fake's repositories. A JWT signed with Key gets
// installation tokens for InstallationID; KeyFile holds Key as GitHub hands it out (PKCS#1 PEM).
type App struct {
	ID             int64
	InstallationID int64
	Key            *rsa.PrivateKey
	KeyFile        string
}

type app struct {
	id  int64
	pub *rsa.PublicKey
}

// AddApp registers a new GitHub App with a fresh 2048-bit key and one installation.
func (s *Server) AddApp(t testing.TB) App {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "app.private-key.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(file, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.apps == nil {
		s.apps, s.installations, s.installTokens = map[int64]*app{}, map[int64]int64{}, map[string]time.Time{}
	}
	a := &app{id: int64(100 + len(s.apps)), pub: &key.PublicKey}
	s.apps[a.id] = a
	inst := int64(5000 + len(s.installations))
	s.installations[inst] = a.id
	return App{ID: a.id, InstallationID: inst, Key: key, KeyFile: file}
}

// SetInstallationTokenTTL sets the lifetime of the installation tokens issued from now on
// (DefaultInstallationTokenTTL until set).
func (s *Server) SetInstallationTokenTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenTTL = d
}

// ExpireInstallationTokens makes every installation token issued so far expire now, as if
// its lifetime had passed: the fake refuses it from now on with 401 Bad credentials.
func (s *Server) ExpireInstallationTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for tok := range s.installTokens {
		s.installTokens[tok] = now
	}
}

// InstallationTokensIssued counts the installation tokens the fake has handed out.
func (s *Server) InstallationTokensIssued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.installTokens)
}

// validToken reports whether a bearer token (the PAT or a live installation token) may call the
// repository endpoints. The caller holds s.mu.
func (s *Server) validToken(tok string) bool {
	if tok == s.Token {
		return true
	}
	exp, ok := s.installTokens[tok]
	return ok && time.Now().Before(exp)
}

// createInstallationToken answers POST /app/installations/{installation_id}/access_tokens as
// GitHub documents it: the request is authenticated with the app's JWT (RS256, iss the app ID,
// iat/exp within GitHub's window); 401 for a bad JWT, 404 for an installation the app lacks,
// else 201 with {token, expires_at, permissions, repository_selection}.
func (s *Server) createInstallationToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["POST /app/installations/{installation_id}/access_tokens"]++
	appID, msg := s.verifyJWT(r.Header.Get("Authorization"), time.Now())
	if msg != "" {
		writeErrorDoc(w, http.StatusUnauthorized, msg, "https://docs.github.com/rest")
		return
	}
	inst, err := strconv.ParseInt(r.PathValue("installation_id"), 10, 64)
	if err != nil || s.installations[inst] != appID {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	ttl := s.tokenTTL
	if ttl == 0 {
		ttl = DefaultInstallationTokenTTL
	}
	tok := "ghs_" + randomHex(18)
	exp := time.Now().Add(ttl).Truncate(time.Second)
	s.installTokens[tok] = exp
	writeJSON(w, http.StatusCreated, map[string]any{
		"token": tok, "expires_at": exp.UTC().Format(time.RFC3339),
		"permissions":          map[string]string{"contents": "write", "pull_requests": "write", "statuses": "write"},
		"repository_selection": "all",
	})
}

// verifyJWT checks an app's JWT as GitHub does and returns the app's ID, or GitHub's message
// for why it is refused. The caller holds s.mu.
func (s *Server) verifyJWT(auth string, now time.Time) (int64, string) {
	const undecodable = "A JSON web token could not be decoded"
	tok, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok {
		return 0, undecodable
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return 0, undecodable
	}
	var header struct{ Alg, Typ string }
	var claims struct {
		Iss json.RawMessage `json:"iss"`
		Iat json.Number     `json:"iat"`
		Exp json.Number     `json:"exp"`
	}
	if decodeSegment(parts[0], &header) != nil || decodeSegment(parts[1], &claims) != nil {
		return 0, undecodable
	}
	if header.Alg != "RS256" {
		return 0, undecodable
	}
	iss := strings.Trim(string(claims.Iss), `"`)
	id, err := strconv.ParseInt(iss, 10, 64)
	a := s.apps[id]
	if err != nil || a == nil {
		return 0, "'Issuer' claim ('iss') must be an Integer"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err != nil || rsa.VerifyPKCS1v15(a.pub, crypto.SHA256, digest[:], sig) != nil {
		return 0, undecodable
	}
	iat, err1 := claims.Iat.Int64()
	exp, err2 := claims.Exp.Int64()
	switch {
	case err1 != nil || time.Unix(iat, 0).After(now.Add(jwtClockDrift)):
		return 0, "'Issued at' claim ('iat') must be an Integer representing a time in the past"
	case err2 != nil || !time.Unix(exp, 0).After(now):
		return 0, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	case time.Unix(exp, 0).Sub(time.Unix(iat, 0)) > jwtMaxLifetime || time.Unix(exp, 0).After(now.Add(jwtMaxLifetime+jwtClockDrift)):
		return 0, "'Expiration time' claim ('exp') is too far in the future"
	}
	return id, ""
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return err
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	return d.Decode(v)
}
