package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/bradleyfalzon/ghinstallation/v2"

	"github.com/slipway-dev/slipway/internal/forge"
)

// The environment variables slipway reads a GitHub App's installation from (instead of TokenVar).
const (
	AppIDVar           = "SLIPWAY_GITHUB_APP_ID"
	AppKeyFileVar      = "SLIPWAY_GITHUB_APP_KEY_FILE"
	AppInstallationVar = "SLIPWAY_GITHUB_APP_INSTALLATION_ID"
)

// appTransport wraps base so every call carries an installation token of the app, fetched
// from apiRoot/app/installations/{id}/access_tokens and refreshed a minute before it expires.
func appTransport(base http.RoundTripper, hc *http.Client, apiRoot string, app *appAuth) (http.RoundTripper, error) {
	switch {
	case app.id <= 0:
		return nil, &forge.InvalidError{Field: AppIDVar, Problem: "must be the GitHub App's numeric ID"}
	case app.installation <= 0:
		return nil, &forge.InvalidError{Field: AppInstallationVar, Problem: "must be the app installation's numeric ID"}
	}
	tr, err := ghinstallation.New(base, app.id, app.installation, app.key)
	if err != nil {
		return nil, &forge.InvalidError{Field: AppKeyFileVar, Problem: "must hold the GitHub App's RSA private key in PEM: " + err.Error()}
	}
	tr.BaseURL = strings.TrimSuffix(apiRoot, "/")
	// Token fetches go through the same traced transport and keep the client's timeout.
	tr.Client = &http.Client{Transport: base, Timeout: hc.Timeout}
	return tr, nil
}

// credential names what authenticates the forge's calls, for error messages.
func credential(app *appAuth) string {
	if app == nil {
		return TokenVar
	}
	return fmt.Sprintf("the GitHub App installation (%s %d, %s %d, %s)", AppIDVar, app.id, AppInstallationVar, app.installation, AppKeyFileVar)
}

// tokenRefused turns a refused installation-token request into an AuthError: a bad key, app
// ID or installation does not mend itself. ok is false for any other error.
func (f *Forge) tokenRefused(err error) (*AuthError, bool) {
	var he *ghinstallation.HTTPError
	if !errors.As(err, &he) || he.Response == nil {
		return nil, false
	}
	code := he.Response.StatusCode
	if code != http.StatusUnauthorized && code != http.StatusForbidden && code != http.StatusNotFound {
		return nil, false
	}
	msg := http.StatusText(code)
	if he.Response.Body != nil {
		var body struct{ Message string }
		if json.NewDecoder(io.LimitReader(he.Response.Body, 64<<10)).Decode(&body) == nil && body.Message != "" {
			msg = body.Message
		}
		he.Response.Body.Close()
	}
	return &AuthError{Status: code, Message: "installation token refused: " + msg, Repo: f.fullName(), Credential: f.credential}, true
}
