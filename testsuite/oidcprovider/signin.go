package oidcprovider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Scopes are what slipway's CLI asks for: the ID token then carries preferred_username,
// email, groups and permissions.
var Scopes = []string{"openid", "profile", "email", "groups", "permissions"}

// Tokens are what a sign-in returns.
type Tokens struct {
	IDToken, AccessToken, RefreshToken string
	// Expiry is the access token's; the ID token's exp is in the token.
	Expiry time.Time
}

// OAuth2Config is the CLI client's configuration at this provider.
func (p *Provider) OAuth2Config() *oauth2.Config {
	return &oauth2.Config{
		ClientID:    p.ClientID,
		RedirectURL: p.RedirectURL,
		Scopes:      Scopes,
		Endpoint: oauth2.Endpoint{
			AuthURL:       p.Issuer + "/auth",
			TokenURL:      p.TokenURL,
			DeviceAuthURL: p.Issuer + "/device/auth",
			AuthStyle:     oauth2.AuthStyleInParams,
		},
	}
}

// SignIn signs user in through the authorization code flow with PKCE, filling the provider's
// real login and consent pages the way a browser would, and exchanges the code.
func (p *Provider) SignIn(ctx context.Context, user, password string) (Tokens, error) {
	cfg := p.OAuth2Config()
	verifier := oauth2.GenerateVerifier()
	state := randomHex(8)
	callback, err := p.Browser().Authorize(ctx, cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)), user, password)
	if err != nil {
		return Tokens{}, err
	}
	q := callback.Query()
	if e := q.Get("error"); e != "" {
		return Tokens{}, fmt.Errorf("oidcprovider: sign-in of %s: %s: %s", user, e, q.Get("error_description"))
	}
	if q.Get("state") != state {
		return Tokens{}, fmt.Errorf("oidcprovider: sign-in of %s: callback state %q, sent %q", user, q.Get("state"), state)
	}
	tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		return Tokens{}, fmt.Errorf("oidcprovider: sign-in of %s: code exchange: %w", user, err)
	}
	return TokensFrom(tok)
}

// TokensFrom takes the ID token out of an OAuth2 token response.
func TokensFrom(tok *oauth2.Token) (Tokens, error) {
	id, _ := tok.Extra("id_token").(string)
	if id == "" {
		return Tokens{}, errors.New("oidcprovider: the token response has no id_token")
	}
	return Tokens{IDToken: id, AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry}, nil
}

// ServiceToken gets a JWT access token for service client id with client_credentials.
func (p *Provider) ServiceToken(ctx context.Context, id string) (*oauth2.Token, error) {
	return p.ServiceConfig(id).Token(ctx)
}

// ServiceConfig is the client_credentials configuration of service client id.
func (p *Provider) ServiceConfig(id string) *clientcredentials.Config {
	return &clientcredentials.Config{ClientID: id, ClientSecret: p.secrets[id], TokenURL: p.TokenURL}
}

// Browser is one person's user agent at the provider: a cookie jar and an HTTP client that
// fills the provider's pages (login, consent, device code) and stops at the first redirect
// that leaves the provider.
type Browser struct {
	p      *Provider
	client *http.Client
	// FollowCallback lets the final redirect reach its target (a real loopback listener such as
	// `slipway login`'s) instead of stopping before it.
	FollowCallback bool
}

// Browser returns a fresh user agent (no session).
func (p *Provider) Browser() *Browser {
	jar, _ := cookiejar.New(nil)
	b := &Browser{p: p}
	b.client = &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > 20 {
				return errors.New("too many redirects")
			}
			if !b.FollowCallback && !strings.HasPrefix(req.URL.String(), p.Issuer+"/") {
				return http.ErrUseLastResponse
			}
			return nil
		}}
	return b
}

// Authorize opens an authorization URL, signs in as user and consents; it returns the
// redirect back to the client (carrying code and state, or error).
func (b *Browser) Authorize(ctx context.Context, authURL, user, password string) (*url.URL, error) {
	return b.drive(ctx, http.MethodGet, authURL, nil, user, password, "")
}

// Cancel opens an authorization URL and presses Cancel on the login page; it returns the
// redirect back to the client (error=access_denied).
func (b *Browser) Cancel(ctx context.Context, authURL string) (*url.URL, error) {
	return b.drive(ctx, http.MethodGet, authURL, nil, "", "", "")
}

// ApproveDevice plays the user of the device flow: opens verificationURI, enters userCode,
// confirms, signs in as user and consents.
func (b *Browser) ApproveDevice(ctx context.Context, verificationURI, userCode, user, password string) error {
	_, err := b.drive(ctx, http.MethodGet, verificationURI, nil, user, password, userCode)
	return err
}

// drive follows the provider's pages until a redirect leaves it (returned) or the device flow
// reports success (nil URL).
func (b *Browser) drive(ctx context.Context, method, target string, form url.Values, user, password, userCode string) (*url.URL, error) {
	for step := 0; step < 12; step++ {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, err := http.NewRequestWithContext(ctx, method, target, body)
		if err != nil {
			return nil, err
		}
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := b.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("oidcprovider: browser: %w", err)
		}
		page, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			loc, err := resp.Location()
			if err != nil {
				return nil, fmt.Errorf("oidcprovider: browser: redirect: %w", err)
			}
			return loc, nil
		}
		if b.FollowCallback && !strings.HasPrefix(resp.Request.URL.String(), b.p.Issuer+"/") {
			return resp.Request.URL, nil
		}
		doc, err := html.Parse(strings.NewReader(string(page)))
		if err != nil {
			return nil, fmt.Errorf("oidcprovider: browser: %s: %w", resp.Request.URL, err)
		}
		title := strings.TrimSpace(text(find(doc, func(n *html.Node) bool { return n.Data == "title" })))
		forms := formsOf(doc)
		var f *htmlForm
		switch {
		case title == "Sign-in Success":
			return nil, nil
		case forms["login"] != nil:
			if msg := text(byID(doc, "error")); msg != "" && form != nil && form.Has("password") {
				return nil, fmt.Errorf("oidcprovider: sign-in of %s refused: %s", user, msg)
			}
			if user == "" {
				cancel := find(doc, func(n *html.Node) bool { return n.Data == "a" && strings.HasSuffix(attr(n, "href"), "/abort") })
				if cancel == nil {
					return nil, errors.New("oidcprovider: browser: the login page has no Cancel link")
				}
				abort, err := resp.Request.URL.Parse(attr(cancel, "href"))
				if err != nil {
					return nil, err
				}
				method, target, form = http.MethodGet, abort.String(), nil
				continue
			}
			f = forms["login"]
			f.values.Set("login", user)
			f.values.Set("password", password)
		case forms["consent"] != nil:
			f = forms["consent"]
		case forms["op.deviceInputForm"] != nil:
			if form.Has("user_code") {
				return nil, fmt.Errorf("oidcprovider: device code %q refused: %s", userCode, strings.Join(strings.Fields(text(doc)), " "))
			}
			f = forms["op.deviceInputForm"]
			f.values.Set("user_code", userCode)
		case forms["op.deviceConfirmForm"] != nil:
			f = forms["op.deviceConfirmForm"]
		default:
			return nil, fmt.Errorf("oidcprovider: browser: unexpected page %s (HTTP %d, %q): %s", resp.Request.URL,
				resp.StatusCode, title, strings.Join(strings.Fields(text(doc)), " "))
		}
		action, err := resp.Request.URL.Parse(f.action)
		if err != nil {
			return nil, err
		}
		method, target, form = f.method, action.String(), f.values
	}
	return nil, errors.New("oidcprovider: browser: too many pages")
}

type htmlForm struct {
	action, method string
	values         url.Values
}

// formsOf collects the forms by id with their inputs' names and values.
func formsOf(doc *html.Node) map[string]*htmlForm {
	forms := map[string]*htmlForm{}
	var walk func(n *html.Node, cur *htmlForm)
	walk = func(n *html.Node, cur *htmlForm) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "form":
				cur = &htmlForm{action: attr(n, "action"), method: strings.ToUpper(attr(n, "method")), values: url.Values{}}
				if cur.method == "" {
					cur.method = http.MethodGet
				}
				forms[attr(n, "id")] = cur
			case "input":
				if cur != nil && attr(n, "name") != "" {
					cur.values.Set(attr(n, "name"), attr(n, "value"))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, cur)
		}
	}
	walk(doc, nil)
	return forms
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && match(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if m := find(c, match); m != nil {
			return m
		}
	}
	return nil
}

func byID(doc *html.Node, id string) *html.Node {
	return find(doc, func(n *html.Node) bool { return attr(n, "id") == id })
}

func text(n *html.Node) string {
	if n == nil {
		return ""
	}
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.Data == "style" || c.Data == "script") {
			continue
		}
		b.WriteString(text(c))
		b.WriteString(" ")
	}
	return b.String()
}

func splitHostPort(issuer string) (string, int, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return "", 0, err
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(port)
	return host, n, err
}
