package identity

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
)

// Why a token is refused. Every refusal is a *TokenError wrapping one of these.
var (
	ErrTokenExpired   = errors.New("token expired")
	ErrForeignIssuer  = errors.New("token from a foreign issuer")
	ErrWrongAudience  = errors.New("token for another client")
	ErrBadSignature   = errors.New("token signature does not verify")
	ErrMalformedToken = errors.New("malformed token")
)

// TokenError is a refused token: Err says why (errors.Is), the message says what to do.
type TokenError struct {
	Err error
	msg string
}

func (e *TokenError) Error() string { return e.msg }
func (e *TokenError) Unwrap() error { return e.Err }

func tokenErr(kind error, format string, args ...any) *TokenError {
	return &TokenError{Err: kind, msg: fmt.Sprintf(format, args...)}
}

// DefaultGroupsClaim is the ID token claim people's groups come from.
const DefaultGroupsClaim = "groups"

// DefaultClientID is the public client the CLI signs in with, unless configured otherwise.
const DefaultClientID = "slipway-cli"

// The sign-in configuration shared by `slipway login`, `slipway server` and the CLI.
const (
	EnvIssuer      = "SLIPWAY_OIDC_ISSUER"
	EnvClientID    = "SLIPWAY_OIDC_CLIENT_ID"
	EnvScopes      = "SLIPWAY_OIDC_SCOPES"
	EnvGroupsClaim = "SLIPWAY_OIDC_GROUPS_CLAIM"
)

// VerifierFromEnv is NewVerifier for SLIPWAY_OIDC_ISSUER, SLIPWAY_OIDC_CLIENT_ID (default
// slipway-cli) and SLIPWAY_OIDC_GROUPS_CLAIM.
func VerifierFromEnv(ctx context.Context, opts ...VerifierOption) (*Verifier, error) {
	issuer := os.Getenv(EnvIssuer)
	if issuer == "" {
		return nil, fmt.Errorf("%s: not set: the issuer URL of the OpenID provider people sign in at", EnvIssuer)
	}
	clientID := os.Getenv(EnvClientID)
	if clientID == "" {
		clientID = DefaultClientID
	}
	return NewVerifier(ctx, issuer, clientID, append([]VerifierOption{WithGroupsClaim(os.Getenv(EnvGroupsClaim))}, opts...)...)
}

// Verifier verifies ID tokens of one OpenID Connect issuer for one client (go-oidc: the
// signature against the issuer's published keys, iss, aud, exp) and turns them into Actors.
type Verifier struct {
	issuer, clientID string
	groupsClaim      string
	verifier         *oidc.IDTokenVerifier
	provider         *oidc.Provider
}

// VerifierOption adjusts a Verifier.
type VerifierOption func(*verifierOptions)

type verifierOptions struct {
	groupsClaim string
	httpClient  *http.Client
}

// WithGroupsClaim names the claim groups come from (default "groups"); a dotted name reads a
// nested claim, e.g. "realm_access.roles" for Keycloak.
func WithGroupsClaim(name string) VerifierOption {
	return func(o *verifierOptions) {
		if name != "" {
			o.groupsClaim = name
		}
	}
}

// WithHTTPClient is the client discovery and key fetches use (default: 30s timeout).
func WithHTTPClient(c *http.Client) VerifierOption {
	return func(o *verifierOptions) { o.httpClient = c }
}

// NewVerifier discovers issuer (its /.well-known/openid-configuration) and returns a Verifier
// for clientID's ID tokens. The issuer must be https, or http on a loopback address (tests,
// a provider on the same host).
func NewVerifier(ctx context.Context, issuer, clientID string, opts ...VerifierOption) (*Verifier, error) {
	o := verifierOptions{groupsClaim: DefaultGroupsClaim, httpClient: &http.Client{Timeout: 30 * time.Second}}
	for _, opt := range opts {
		opt(&o)
	}
	if err := CheckIssuerURL(issuer); err != nil {
		return nil, err
	}
	if strings.TrimSpace(clientID) == "" {
		return nil, errors.New("oidc client ID: empty (set --client-id or SLIPWAY_OIDC_CLIENT_ID)")
	}
	p, err := oidc.NewProvider(oidc.ClientContext(ctx, o.httpClient), issuer)
	if err != nil {
		return nil, fmt.Errorf("oidc issuer %s: discovery: %w", issuer, err)
	}
	// The key set fetches with the client of the context given here, for the verifier's life.
	v := p.VerifierContext(oidc.ClientContext(context.WithoutCancel(ctx), o.httpClient), &oidc.Config{ClientID: clientID})
	return &Verifier{issuer: issuer, clientID: clientID, groupsClaim: o.groupsClaim, verifier: v, provider: p}, nil
}

// CheckIssuerURL refuses an issuer that is not an absolute https URL, or http on loopback.
func CheckIssuerURL(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Errorf("oidc issuer %q: not an absolute http(s) URL", issuer)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return fmt.Errorf("oidc issuer %q: must be https (plain http only on a loopback address)", issuer)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Issuer is the issuer URL this verifier trusts.
func (v *Verifier) Issuer() string { return v.issuer }

// ClientID is the audience this verifier expects.
func (v *Verifier) ClientID() string { return v.clientID }

// Endpoints are the provider's endpoints from discovery.
func (v *Verifier) Endpoints() Endpoints {
	var extra struct {
		Device     string `json:"device_authorization_endpoint"`
		Revocation string `json:"revocation_endpoint"`
	}
	_ = v.provider.Claims(&extra)
	ep := v.provider.Endpoint()
	return Endpoints{Auth: ep.AuthURL, Token: ep.TokenURL, Device: extra.Device, Revocation: extra.Revocation}
}

// Endpoints of an OpenID provider that sign-in uses.
type Endpoints struct {
	Auth       string `json:"auth"`
	Token      string `json:"token"`
	Device     string `json:"device,omitempty"`
	Revocation string `json:"revocation,omitempty"`
}

// idClaims are the claims an Actor is made of.
type idClaims struct {
	Issuer   string          `json:"iss"`
	Audience json.RawMessage `json:"aud"`
	AZP      string          `json:"azp"`
	Subject  string          `json:"sub"`
	Username string          `json:"preferred_username"`
	Email    string          `json:"email"`
	// EmailVerified false drops the email: an address the provider did not check names nobody.
	EmailVerified json.RawMessage `json:"email_verified"`
}

// Verify checks rawIDToken and returns the person it names. Refusals are *TokenError saying
// why: expired, foreign issuer, wrong audience, bad signature or malformed.
func (v *Verifier) Verify(ctx context.Context, rawIDToken string) (Actor, error) {
	// The unverified claims only choose the refusal's message; nothing is accepted until
	// go-oidc has verified the signature and the claims below.
	peek, err := peekClaims(rawIDToken)
	if err != nil {
		return Actor{}, tokenErr(ErrMalformedToken, "not an ID token: %v", err)
	}
	if peek.Issuer != v.issuer {
		return Actor{}, tokenErr(ErrForeignIssuer, "token issued by %q, not by the identity provider slipway trusts (%s): sign in with `slipway login --issuer %s`", peek.Issuer, v.issuer, v.issuer)
	}
	if aud := audiences(peek.Audience); !slices.Contains(aud, v.clientID) || (len(aud) > 1 && peek.AZP != "" && peek.AZP != v.clientID) {
		return Actor{}, tokenErr(ErrWrongAudience, "token issued for %v, not for client %q: is it an access token or another application's ID token?", aud, v.clientID)
	}
	tok, err := v.verifier.Verify(ctx, rawIDToken)
	var expired *oidc.TokenExpiredError
	switch {
	case errors.As(err, &expired):
		return Actor{}, tokenErr(ErrTokenExpired, "token expired at %s: run slipway login", expired.Expiry.UTC().Format(time.RFC3339))
	case err != nil && strings.Contains(err.Error(), "failed to verify signature"):
		return Actor{}, tokenErr(ErrBadSignature, "token signature does not verify against the keys of %s: %v", v.issuer, err)
	case err != nil:
		return Actor{}, tokenErr(ErrMalformedToken, "token refused: %v", err)
	}
	var c idClaims
	var all map[string]any
	if err := tok.Claims(&c); err != nil {
		return Actor{}, tokenErr(ErrMalformedToken, "token claims: %v", err)
	}
	if err := tok.Claims(&all); err != nil {
		return Actor{}, tokenErr(ErrMalformedToken, "token claims: %v", err)
	}
	if c.Subject == "" {
		return Actor{}, tokenErr(ErrMalformedToken, "token has no sub claim")
	}
	groups, err := stringsClaim(all, v.groupsClaim)
	if err != nil {
		return Actor{}, tokenErr(ErrMalformedToken, "token claim %q: %v", v.groupsClaim, err)
	}
	email := c.Email
	if v := strings.TrimSpace(string(c.EmailVerified)); v == "false" || v == `"false"` {
		email = ""
	}
	name := c.Username
	if name == "" {
		name = email
	}
	return Actor{Kind: Person, Issuer: v.issuer, Subject: c.Subject, Name: name, Email: email, Groups: groups}, nil
}

// Expiry is the exp of a JWT, unverified: for deciding when to refresh, never to trust.
func Expiry(rawJWT string) (time.Time, error) {
	var c struct {
		Exp json.Number `json:"exp"`
	}
	if err := peekJSON(rawJWT, &c); err != nil {
		return time.Time{}, err
	}
	n, err := c.Exp.Int64()
	if err != nil {
		return time.Time{}, fmt.Errorf("exp: %w", err)
	}
	return time.Unix(n, 0).UTC(), nil
}

func peekClaims(raw string) (idClaims, error) {
	var c idClaims
	err := peekJSON(raw, &c)
	return c, err
}

func peekJSON(raw string, v any) error {
	parts := strings.Split(raw, ".")
	if len(parts) != 3 {
		return fmt.Errorf("a JWT has 3 dot-separated parts, this has %d", len(parts))
	}
	data, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("payload: %w", err)
	}
	return nil
}

// audiences reads aud, a string or a list of strings.
func audiences(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// stringsClaim reads the claim at a dotted path as a list of strings (a single string is a
// list of one; a missing claim is no groups).
func stringsClaim(claims map[string]any, path string) ([]string, error) {
	var cur any = claims
	for _, key := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil
		}
		if cur, ok = m[key]; !ok {
			return nil, nil
		}
	}
	switch v := cur.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("not a list of strings (has %T)", e)
			}
			out = append(out, s)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("not a list of strings (is %T)", cur)
	}
}
