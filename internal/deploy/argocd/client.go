// Package argocd deploys an instance's manifests through argocd-server's REST API
// with a bearer token, the way a platform team's external automation would.
package argocd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/tracing"
)

// Client is a small typed client for the documented /api/v1 endpoints.
type Client struct {
	base        *url.URL
	token       string
	http        *http.Client
	poll        time.Duration
	destination string
	project     string
}

// New returns a client for the argocd-server at baseURL using token.
// Errors name SLIPWAY_ARGOCD_URL or SLIPWAY_ARGOCD_TOKEN and never contain the token.
func New(baseURL, token string, opts ...Option) (*Client, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return nil, err
	}
	if token == "" {
		return nil, &InvalidInputError{Field: EnvToken, Reason: "is empty; create an API token (argocd account generate-token) or log in"}
	}
	if strings.ContainsAny(token, " \t\r\n") {
		return nil, &InvalidInputError{Field: EnvToken, Reason: "contains whitespace; it must be the bare token"}
	}
	c := &Client{
		base:        base,
		token:       token,
		http:        &http.Client{Timeout: 30 * time.Second},
		poll:        DefaultPollInterval,
		destination: DefaultDestination,
		project:     DefaultProject,
	}
	for _, o := range opts {
		if err := o(c); err != nil {
			return nil, err
		}
	}
	c.http = tracing.HTTPClient(c.http) // each call is a span of the step that makes it
	return c, nil
}

// NewFromEnv reads SLIPWAY_ARGOCD_URL and SLIPWAY_ARGOCD_TOKEN.
func NewFromEnv(opts ...Option) (*Client, error) {
	return New(os.Getenv(EnvURL), os.Getenv(EnvToken), opts...)
}

// Project is the ArgoCD project the client's applications belong to.
func (c *Client) Project() string { return c.project }

// Destination is the destination cluster's server URL.
func (c *Client) Destination() string { return c.destination }

// inProject is c with per-app calls scoped to project p, where the app lives.
func (c *Client) inProject(p string) *Client {
	cc := *c
	cc.project = p
	return &cc
}

func parseBaseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, &InvalidInputError{Field: EnvURL, Reason: "is empty; set it to argocd-server's URL, e.g. https://argocd.example.com"}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &InvalidInputError{Field: EnvURL, Reason: fmt.Sprintf("%q is not an http(s) URL with a host", raw)}
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, &InvalidInputError{Field: EnvURL, Reason: "must not carry credentials, a query or a fragment"}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// request is one REST call: op names it in errors.
type request struct {
	op     string
	method string
	path   string // already escaped
	query  url.Values
	body   any
}

// errorBody is grpc-gateway's error JSON as argocd-server sends it.
type errorBody struct {
	Error   string `json:"error"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// do sends r and decodes a 2xx answer into out (when non-nil); other statuses become typed errors.
func (c *Client) do(ctx context.Context, r request, out any) error {
	return send(ctx, c.http, c.base, c.token, r, out)
}

func send(ctx context.Context, hc *http.Client, base *url.URL, token string, r request, out any) error {
	u := *base
	u.Path = base.Path + r.path
	u.RawPath = base.EscapedPath() + r.path
	u.RawQuery = r.query.Encode()
	var body io.Reader
	if r.body != nil {
		data, err := json.Marshal(r.body)
		if err != nil {
			return fmt.Errorf("argocd: %s: encode request: %w", r.op, err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return fmt.Errorf("argocd: %s: %w", r.op, err)
	}
	// argocd-server answers 415 to any request without it, bodiless DELETEs and GETs included.
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("argocd: %s: %w", r.op, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if out == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			return nil
		}
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("argocd: %s: decode answer: %w", r.op, err)
		}
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return statusError(r.op, resp.StatusCode, data)
}

// statusError maps an HTTP status and ArgoCD's error body to a typed error.
func statusError(op string, status int, data []byte) error {
	var eb errorBody
	msg := strings.TrimSpace(string(data))
	if json.Unmarshal(data, &eb) == nil && (eb.Message != "" || eb.Error != "") {
		msg = eb.Message
		if msg == "" {
			msg = eb.Error
		}
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return &UnauthorizedError{Op: op, Status: status, Message: msg}
	case http.StatusNotFound:
		return &NotFoundError{Op: op, Message: msg}
	case http.StatusConflict:
		return &ConflictError{Op: op, Message: msg}
	}
	return &APIError{Op: op, Status: status, Code: eb.Code, Message: msg}
}

// appPath is /api/v1/applications/<name> plus suffix, with name escaped.
func appPath(name, suffix string) string {
	return "/api/v1/applications/" + url.PathEscape(name) + suffix
}

// projectQuery scopes a per-app call to the project, so a missing app is a 404
// (without it argocd-server answers 403 to hide whether the app exists).
func (c *Client) projectQuery() url.Values {
	return url.Values{"project": {c.project}}
}

func requireName(name string) error {
	if name == "" {
		return &InvalidInputError{Field: "application name", Reason: "must not be empty"}
	}
	return nil
}
