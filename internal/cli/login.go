package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/oauth2"

	"github.com/slipway-dev/slipway/internal/identity"
)

// Sign-in configuration from the environment; flags override it.
const (
	envOIDCIssuer       = identity.EnvIssuer
	envOIDCClientID     = identity.EnvClientID
	envOIDCScopes       = identity.EnvScopes
	envOIDCGroupsClaim  = identity.EnvGroupsClaim
	defaultOIDCClientID = identity.DefaultClientID
	defaultOIDCScopes   = "openid profile email groups offline_access"
	// exitNotSignedIn is the "refused" exit code: not signed in, or the token is refused.
	exitNotSignedIn = ExitRefused
)

type loginFlags struct {
	issuer, clientID, listen, scopes, groupsClaim string
	device, open                                  bool
	timeout                                       time.Duration
}

// refused maps a missing sign-in or a refused token to the refusal exit code.
func refused(err error) error {
	var nsi *identity.NotSignedInError
	var te *identity.TokenError
	if errors.As(err, &nsi) || errors.As(err, &te) {
		return &exitError{code: exitNotSignedIn, msg: err.Error()}
	}
	return err
}

// checkedProfile is the profile whose sign-in login, logout and whoami handle: the one --profile
// (the global flag) picks for the Temporal connection too.
func (g *globals) checkedProfile() (string, error) { return resolveProfile(g.profile).checked() }

func (g *globals) loginCmd() *cobra.Command {
	var f loginFlags
	cmd := &cobra.Command{
		Use:   "login",
		Short: "Sign in at the OpenID Connect provider (authorization code with PKCE, or --device) and cache the token",
		Long: `Sign in at the OpenID Connect provider and cache the tokens in $XDG_CONFIG_HOME/slipway/tokens.json
(mode 0600), one sign-in per profile. Without --device it prints a URL to open in a browser and waits
for the provider to redirect back to a listener on 127.0.0.1 (authorization code with PKCE); with
--device it prints a code to enter on the provider's device page (for a machine without a browser).
The cached ID token is refreshed with the refresh token when it is near expiry.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error { return g.login(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.issuer, "issuer", os.Getenv(envOIDCIssuer), "OpenID Connect issuer URL (also "+envOIDCIssuer+")")
	fl.StringVar(&f.clientID, "client-id", envOr(envOIDCClientID, defaultOIDCClientID), "the CLI's public client ID at the provider (also "+envOIDCClientID+")")
	fl.BoolVar(&f.device, "device", false, "use the device code flow: enter a code on the provider's page from any browser")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:0", "loopback address the browser is redirected back to (authorization code flow)")
	fl.BoolVar(&f.open, "open", false, "also open the sign-in URL with xdg-open")
	fl.StringVar(&f.scopes, "scopes", envOr(envOIDCScopes, defaultOIDCScopes), "scopes to ask for, space-separated (also "+envOIDCScopes+")")
	fl.StringVar(&f.groupsClaim, "groups-claim", envOr(envOIDCGroupsClaim, identity.DefaultGroupsClaim), "ID token claim holding the groups; dotted for nested (also "+envOIDCGroupsClaim+")")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "how long to wait for the sign-in in the browser")
	return cmd
}

func (g *globals) login(ctx context.Context, f loginFlags) error {
	profile, err := g.checkedProfile()
	if err != nil {
		return err
	}
	switch {
	case f.issuer == "":
		return usageErr("--issuer: required (or set %s)", envOIDCIssuer)
	case identity.CheckIssuerURL(f.issuer) != nil:
		return usageErr("--issuer: %v", identity.CheckIssuerURL(f.issuer))
	case strings.TrimSpace(f.clientID) == "":
		return usageErr("--client-id: empty")
	case f.timeout <= 0:
		return usageErr("--timeout: must be positive")
	case !strings.Contains(" "+f.scopes+" ", " openid "):
		return usageErr("--scopes: must include openid")
	}
	var listener net.Listener
	if !f.device {
		host, _, err := net.SplitHostPort(f.listen)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return usageErr("--listen %q: must be a loopback IP address and port, e.g. 127.0.0.1:0", f.listen)
		}
		if listener, err = net.Listen("tcp", f.listen); err != nil {
			return usageErr("--listen %q: %v", f.listen, err)
		}
		defer listener.Close()
	}
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	v, err := identity.NewVerifier(ctx, f.issuer, f.clientID, identity.WithGroupsClaim(f.groupsClaim))
	if err != nil {
		return err
	}
	ep := v.Endpoints()
	cfg := &oauth2.Config{
		ClientID: f.clientID,
		Scopes:   strings.Fields(f.scopes),
		Endpoint: oauth2.Endpoint{AuthURL: ep.Auth, TokenURL: ep.Token, DeviceAuthURL: ep.Device, AuthStyle: oauth2.AuthStyleInParams},
	}
	var tok *oauth2.Token
	if f.device {
		tok, err = g.deviceLogin(ctx, cfg, f.issuer)
	} else {
		tok, err = g.browserLogin(ctx, cfg, listener, f)
	}
	if err != nil {
		return err
	}
	id, _ := tok.Extra("id_token").(string)
	if id == "" {
		return fmt.Errorf("sign-in at %s: the token response has no id_token (is openid among the client's scopes?)", f.issuer)
	}
	actor, err := v.Verify(ctx, id)
	if err != nil {
		return refused(err)
	}
	exp, err := identity.Expiry(id)
	if err != nil {
		return err
	}
	t := identity.Token{Issuer: f.issuer, ClientID: f.clientID, Endpoints: ep, IDToken: id, AccessToken: tok.AccessToken,
		RefreshToken: tok.RefreshToken, Expiry: exp, AccessTokenExpiry: tok.Expiry.UTC(), Name: actor.Name}
	if err := identity.SaveToken(profile, t); err != nil {
		return err
	}
	g.printf("Signed in as %s at %s (profile %s)\n", describe(actor), f.issuer, profile)
	if tok.RefreshToken == "" {
		fmt.Fprintf(g.streams.Err, "warning: the provider issued no refresh token: run slipway login again after %s\n", exp.Local().Format(time.RFC3339))
	}
	return nil
}

func describe(a identity.Actor) string {
	s := a.Name
	if len(a.Groups) > 0 {
		s += " (groups: " + strings.Join(a.Groups, ", ") + ")"
	} else {
		s += " (no groups)"
	}
	return s
}

// browserLogin runs the authorization code flow with PKCE: the browser comes back to listener.
func (g *globals) browserLogin(ctx context.Context, cfg *oauth2.Config, listener net.Listener, f loginFlags) (*oauth2.Token, error) {
	cfg.RedirectURL = "http://" + listener.Addr().String() + "/callback"
	verifier, state := oauth2.GenerateVerifier(), randomState()
	authURL := cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))
	type result struct {
		code string
		err  error
	}
	done := make(chan result, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		// A request without our state is not the provider's answer: refuse it and keep waiting.
		if q.Get("state") != state {
			http.Error(w, "unexpected state", http.StatusBadRequest)
			return
		}
		res := result{code: q.Get("code")}
		if e := q.Get("error"); e != "" {
			res = result{err: fmt.Errorf("sign-in at %s refused: %s: %s", f.issuer, e, q.Get("error_description"))}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "Signed in to slipway. You can close this window."
		if res.err != nil {
			msg = res.err.Error()
		}
		fmt.Fprintf(w, "<!DOCTYPE html><title>slipway login</title><p>%s</p>\n", html.EscapeString(msg))
		select {
		case done <- res:
		default:
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(listener) }()
	defer srv.Close()
	fmt.Fprintf(g.streams.Err, "Open this URL in a browser to sign in at %s:\n\n  %s\n\nWaiting for the browser to come back to %s\n", f.issuer, authURL, cfg.RedirectURL)
	if f.open {
		if err := exec.Command("xdg-open", authURL).Start(); err != nil {
			fmt.Fprintf(g.streams.Err, "could not open a browser (%v): open the URL above\n", err)
		}
	}
	var res result
	select {
	case <-ctx.Done():
		return nil, fmt.Errorf("sign-in at %s: no answer from the browser within --timeout %s", f.issuer, f.timeout)
	case res = <-done:
	}
	if res.err != nil {
		return nil, res.err
	}
	tok, err := cfg.Exchange(ctx, res.code, oauth2.VerifierOption(verifier))
	if err != nil {
		return nil, fmt.Errorf("sign-in at %s: code exchange: %w", f.issuer, err)
	}
	return tok, nil
}

// deviceLogin runs the device code flow (RFC 8628): the user enters a code on the provider's page.
func (g *globals) deviceLogin(ctx context.Context, cfg *oauth2.Config, issuer string) (*oauth2.Token, error) {
	if cfg.Endpoint.DeviceAuthURL == "" {
		return nil, usageErr("--device: the provider at %s has no device authorization endpoint; sign in without --device", issuer)
	}
	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		return nil, fmt.Errorf("sign-in at %s: device authorization: %w", issuer, err)
	}
	fmt.Fprintf(g.streams.Err, "To sign in at %s, open\n\n  %s\n\nand enter the code\n\n  %s\n\n", issuer, da.VerificationURI, da.UserCode)
	if da.VerificationURIComplete != "" {
		fmt.Fprintf(g.streams.Err, "(or open %s)\n", da.VerificationURIComplete)
	}
	fmt.Fprintf(g.streams.Err, "Waiting for the sign-in (until %s)\n", da.Expiry.Local().Format(time.TimeOnly))
	tok, err := cfg.DeviceAccessToken(ctx, da)
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("sign-in at %s: %s %s", issuer, re.ErrorCode, re.ErrorDescription)
		}
		return nil, fmt.Errorf("sign-in at %s: %w", issuer, err)
	}
	return tok, nil
}

func randomState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (g *globals) logoutCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "logout",
		Short: "Forget the cached sign-in of a profile and revoke its refresh token at the provider",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := g.checkedProfile()
			if err != nil {
				return err
			}
			t, ok, err := identity.ForgetToken(p)
			if err != nil {
				return err
			}
			if !ok {
				g.printf("Not signed in (profile %s): nothing to forget\n", p)
				return nil
			}
			g.printf("Signed out of %s (profile %s)\n", t.Issuer, p)
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			switch revoked, err := identity.Revoke(ctx, t); {
			case err != nil:
				// The cache no longer has it either way; say the token may live until it expires.
				fmt.Fprintf(g.streams.Err, "warning: the refresh token was forgotten but not revoked: %v\n", err)
			case revoked:
				g.printf("Refresh token revoked at %s\n", t.Issuer)
			}
			return nil
		},
	}
	return cmd
}

func (g *globals) whoamiCmd() *cobra.Command {
	var groupsClaim string
	var out *outputFormat
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Print who the cached sign-in says you are, after verifying its ID token at the provider",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := g.checkedProfile()
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
			defer cancel()
			t, err := identity.CachedTokenContext(ctx, p)
			if err != nil {
				return refused(err)
			}
			v, err := identity.NewVerifier(ctx, t.Issuer, t.ClientID, identity.WithGroupsClaim(groupsClaim))
			if err != nil {
				return err
			}
			a, err := v.Verify(ctx, t.IDToken)
			if err != nil {
				return refused(err)
			}
			return g.output(out, a, func(w io.Writer) {
				fmt.Fprintf(w, "%s\nsubject: %s\nemail: %s\ngroups: %s\nprofile: %s (token valid until %s)\n", a,
					a.Subject, a.Email, strings.Join(a.Groups, ", "), p, t.Expiry.Local().Format(time.RFC3339))
			})
		},
	}
	cmd.Flags().StringVar(&groupsClaim, "groups-claim", envOr(envOIDCGroupsClaim, identity.DefaultGroupsClaim), "ID token claim holding the groups (also "+envOIDCGroupsClaim+")")
	out = outputFlag(cmd)
	return cmd
}
