package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"golang.org/x/oauth2"
)

// EnvProfile picks the sign-in profile when --profile is not given.
const EnvProfile = "SLIPWAY_PROFILE"

// DefaultProfile is the profile of a plain `slipway login`.
const DefaultProfile = "default"

// RefreshBefore is how long before its ID token expires a cached sign-in is refreshed.
var RefreshBefore = time.Minute

// ErrNotSignedIn is the refusal when there is no usable sign-in: none cached, or its refresh
// token is gone (expired, revoked).
var ErrNotSignedIn = errors.New("not signed in")

// NotSignedInError says which profile and what to run.
type NotSignedInError struct {
	Profile, Reason string
}

func (e *NotSignedInError) Error() string {
	profile, cmd := e.Profile, "slipway login"
	if profile == "" {
		profile = DefaultProfile
	}
	if profile != DefaultProfile {
		cmd += " --profile " + profile
	}
	return fmt.Sprintf("not signed in (profile %q): %s: run %s", profile, e.Reason, cmd)
}

func (e *NotSignedInError) Unwrap() error { return ErrNotSignedIn }

// Token is one profile's cached sign-in, like an `argocd login` context.
type Token struct {
	Issuer    string    `json:"issuer"`
	ClientID  string    `json:"clientID"`
	Endpoints Endpoints `json:"endpoints"`
	// IDToken is what slipway server verifies (Authorization: Bearer).
	IDToken      string `json:"idToken"`
	AccessToken  string `json:"accessToken,omitempty"`
	RefreshToken string `json:"refreshToken,omitempty"`
	// Expiry is the ID token's exp.
	Expiry time.Time `json:"expiry"`
	// AccessTokenExpiry is the access token's (it may live shorter than the ID token).
	AccessTokenExpiry time.Time `json:"accessTokenExpiry,omitzero"`
	// Name is who signed in (preferred_username), for messages only.
	Name string `json:"name,omitempty"`
}

type tokenFile struct {
	Profiles map[string]Token `json:"profiles"`
}

var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckProfile refuses a profile name that is not 1-64 letters, digits, '.', '_' or '-'.
func CheckProfile(profile string) error {
	if !profileName.MatchString(profile) {
		return fmt.Errorf("profile %q: use 1-64 letters, digits, '.', '_' or '-'", profile)
	}
	return nil
}

// ProfileOr is profile, else $SLIPWAY_PROFILE, else "default".
func ProfileOr(profile string) string {
	if profile != "" {
		return profile
	}
	if p := os.Getenv(EnvProfile); p != "" {
		return p
	}
	return DefaultProfile
}

// TokensPath is the token cache: $XDG_CONFIG_HOME/slipway/tokens.json (~/.config/... without it).
func TokensPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("token cache: %w", err)
	}
	return filepath.Join(dir, "slipway", "tokens.json"), nil
}

// SaveToken caches t as profile's sign-in, replacing what it had.
func SaveToken(profile string, t Token) error {
	return updateTokens(func(f *tokenFile) error {
		f.Profiles[profile] = t
		return nil
	})
}

// LoadToken is profile's cached sign-in as it is (not refreshed).
func LoadToken(profile string) (Token, error) {
	if err := CheckProfile(profile); err != nil {
		return Token{}, err
	}
	path, err := TokensPath()
	if err != nil {
		return Token{}, err
	}
	f, err := readTokens(path)
	if err != nil {
		return Token{}, err
	}
	t, ok := f.Profiles[profile]
	if !ok {
		return Token{}, &NotSignedInError{Profile: profile, Reason: "no sign-in cached in " + path}
	}
	return t, nil
}

// ForgetToken removes profile's sign-in from the cache and returns it (ok false: there was none).
func ForgetToken(profile string) (t Token, ok bool, err error) {
	err = updateTokens(func(f *tokenFile) error {
		t, ok = f.Profiles[profile]
		delete(f.Profiles, profile)
		return nil
	})
	return t, ok, err
}

// CachedToken is profile's sign-in with an ID token good for at least RefreshBefore: refreshed
// with the refresh token (and cached again) when it is near expiry. With no usable sign-in it
// returns a *NotSignedInError.
func CachedToken(profile string) (Token, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return CachedTokenContext(ctx, profile)
}

// CachedTokenContext is CachedToken with a context for the refresh.
func CachedTokenContext(ctx context.Context, profile string) (Token, error) {
	t, err := LoadToken(profile)
	if err != nil || !t.nearExpiry() {
		return t, err
	}
	// Under the lock, so two commands never spend the same (rotating) refresh token.
	err = updateTokens(func(f *tokenFile) error {
		cur, ok := f.Profiles[profile]
		if !ok {
			return &NotSignedInError{Profile: profile, Reason: "signed out meanwhile"}
		}
		if !cur.nearExpiry() { // another command refreshed it meanwhile
			t = cur
			return nil
		}
		fresh, err := Refresh(ctx, cur)
		if err != nil {
			var nsi *NotSignedInError
			if errors.As(err, &nsi) {
				nsi.Profile = profile
				delete(f.Profiles, profile)
			}
			return err
		}
		f.Profiles[profile], t = fresh, fresh
		return nil
	})
	return t, err
}

// nearExpiry: the ID token, or the access token when it has one, expires within RefreshBefore.
func (t Token) nearExpiry() bool {
	if time.Until(t.Expiry) <= RefreshBefore {
		return true
	}
	return t.AccessToken != "" && !t.AccessTokenExpiry.IsZero() && time.Until(t.AccessTokenExpiry) <= RefreshBefore
}

// Refresh exchanges t's refresh token for a new ID token. A refresh token the provider
// refuses (expired, revoked) is a *NotSignedInError.
func Refresh(ctx context.Context, t Token) (Token, error) {
	if t.RefreshToken == "" {
		return t, &NotSignedInError{Reason: fmt.Sprintf("the ID token expired at %s and there is no refresh token", t.Expiry.UTC().Format(time.RFC3339))}
	}
	cfg := oauth2.Config{ClientID: t.ClientID, Endpoint: oauth2.Endpoint{TokenURL: t.Endpoints.Token, AuthStyle: oauth2.AuthStyleInParams}}
	ctx = context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Timeout: 30 * time.Second})
	nt, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: t.RefreshToken, Expiry: time.Unix(1, 0)}).Token()
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || (re.Response != nil && re.Response.StatusCode == http.StatusBadRequest)):
		return t, &NotSignedInError{Reason: fmt.Sprintf("%s refused the refresh token (%s %s)", t.Issuer, re.ErrorCode, re.ErrorDescription)}
	case err != nil:
		return t, fmt.Errorf("refresh the sign-in at %s: %w", t.Issuer, err)
	}
	id, _ := nt.Extra("id_token").(string)
	if id == "" {
		return t, fmt.Errorf("refresh the sign-in at %s: the token response has no id_token", t.Issuer)
	}
	exp, err := Expiry(id)
	if err != nil {
		return t, fmt.Errorf("refresh the sign-in at %s: %w", t.Issuer, err)
	}
	t.IDToken, t.AccessToken, t.Expiry, t.AccessTokenExpiry = id, nt.AccessToken, exp, nt.Expiry.UTC()
	if nt.RefreshToken != "" {
		t.RefreshToken = nt.RefreshToken
	}
	return t, nil
}

// Revoke asks the provider to revoke t's refresh token (RFC 7009). A provider without a
// revocation endpoint is not an error: the token then lives until it expires.
func Revoke(ctx context.Context, t Token) (revoked bool, err error) {
	if t.Endpoints.Revocation == "" || t.RefreshToken == "" {
		return false, nil
	}
	form := url.Values{"token": {t.RefreshToken}, "token_type_hint": {"refresh_token"}, "client_id": {t.ClientID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.Endpoints.Revocation, strings.NewReader(form.Encode()))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return false, fmt.Errorf("revoke at %s: %w", t.Endpoints.Revocation, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("revoke at %s: HTTP %d", t.Endpoints.Revocation, resp.StatusCode)
	}
	return true, nil
}

// updateTokens runs fn on the cache under an exclusive lock and writes it back (0600).
func updateTokens(fn func(*tokenFile) error) error {
	path, err := TokensPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("token cache: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("token cache: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("token cache: lock: %w", err)
	}
	f, err := readTokens(path)
	if err != nil {
		return err
	}
	fnErr := fn(&f)
	var nsi *NotSignedInError
	if fnErr != nil && !errors.As(fnErr, &nsi) {
		return fnErr
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tokens-*.json")
	if err != nil {
		return fmt.Errorf("token cache: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("token cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("token cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("token cache: %w", err)
	}
	return fnErr
}

func readTokens(path string) (tokenFile, error) {
	f := tokenFile{Profiles: map[string]Token{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, fmt.Errorf("token cache: %w", err)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, fmt.Errorf("token cache %s: %w (remove it and run slipway login)", path, err)
	}
	if f.Profiles == nil {
		f.Profiles = map[string]Token{}
	}
	return f, nil
}
