package argocd

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/slipway-dev/slipway/internal/tracing"
)

// Login exchanges a username and password for an API token (POST /api/v1/session).
// Neither the password nor the token appears in any error.
func Login(ctx context.Context, baseURL, username, password string, opts ...Option) (string, error) {
	base, err := parseBaseURL(baseURL)
	if err != nil {
		return "", err
	}
	if username == "" {
		return "", &InvalidInputError{Field: "username", Reason: "must not be empty"}
	}
	if password == "" {
		return "", &InvalidInputError{Field: "password", Reason: "must not be empty"}
	}
	c := &Client{http: &http.Client{Timeout: 30 * time.Second}}
	for _, o := range opts {
		if err := o(c); err != nil {
			return "", err
		}
	}
	c.http = tracing.HTTPClient(c.http)
	var out struct {
		Token string `json:"token"`
	}
	in := map[string]string{"username": username, "password": password}
	err = send(ctx, c.http, base, "", request{op: "login as " + username, method: http.MethodPost, path: "/api/v1/session", body: in}, &out)
	var unauth *UnauthorizedError
	if errors.As(err, &unauth) {
		unauth.Login = true
	}
	if err != nil {
		return "", err
	}
	if out.Token == "" {
		return "", &APIError{Op: "login as " + username, Status: http.StatusOK, Message: "answer carried no token"}
	}
	return out.Token, nil
}
