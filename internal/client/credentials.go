package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/slipway-dev/slipway/internal/errkind"
)

// A Temporal server with authorization on (its JWT authorizer) wants a bearer token on every
// call. slipway's components get theirs from the identity provider with the client
// credentials grant, or read one a platform mounts (a projected service-account token).
const (
	EnvTokenURL      = "SLIPWAY_TEMPORAL_TOKEN_URL"      // the provider's token endpoint
	EnvClientID      = "SLIPWAY_TEMPORAL_CLIENT_ID"      // this component's client ID
	EnvClientSecret  = "SLIPWAY_TEMPORAL_CLIENT_SECRET"  // and its secret
	EnvTokenScopes   = "SLIPWAY_TEMPORAL_TOKEN_SCOPES"   // optional, space-separated
	EnvTokenResource = "SLIPWAY_TEMPORAL_TOKEN_RESOURCE" // optional RFC 8707 resource indicator (the token's audience)
	EnvTokenFile     = "SLIPWAY_TEMPORAL_TOKEN_FILE"     // or: a file holding the token, read again when it changes
)

// tokenTimeout bounds one request to the token endpoint.
const tokenTimeout = 30 * time.Second

// TokenFunc returns the bearer token for the next Temporal call (without "Bearer ").
type TokenFunc func(ctx context.Context) (string, error)

// WithToken sends the token f returns on every Temporal call (a person's cached sign-in, a
// test's token); it replaces SLIPWAY_TEMPORAL_* and TEMPORAL_API_KEY.
func WithToken(f TokenFunc) Option {
	return func(o *settings) { o.Credentials = client.NewAPIKeyDynamicCredentials(f) }
}

// CredentialsError is a Temporal credential setting that cannot work; nothing was sent.
type CredentialsError struct {
	Var    string // the environment variable at fault
	Reason string
}

func (e *CredentialsError) Error() string { return fmt.Sprintf("%s: %s", e.Var, e.Reason) }

func (e *CredentialsError) kind() errkind.Kind   { return errkind.Invalid }
func (e *CredentialsError) Is(target error) bool { return target == e.kind() }

// TokenFromEnv is the Temporal credential the environment configures: client credentials
// (SLIPWAY_TEMPORAL_TOKEN_URL, _CLIENT_ID, _CLIENT_SECRET), a token file
// (SLIPWAY_TEMPORAL_TOKEN_FILE), or nil when neither is set.
func TokenFromEnv(getenv func(string) string) (TokenFunc, error) {
	tokenURL, id, secret, file := getenv(EnvTokenURL), getenv(EnvClientID), getenv(EnvClientSecret), getenv(EnvTokenFile)
	grant := tokenURL != "" || id != "" || secret != ""
	switch {
	case grant && file != "":
		return nil, &CredentialsError{Var: EnvTokenFile, Reason: fmt.Sprintf("set either it or %s, %s and %s, not both",
			EnvTokenURL, EnvClientID, EnvClientSecret)}
	case file != "":
		return newTokenFile(file).token, nil
	case !grant:
		return nil, nil
	}
	for _, v := range []struct{ name, value string }{{EnvTokenURL, tokenURL}, {EnvClientID, id}, {EnvClientSecret, secret}} {
		if v.value == "" {
			return nil, &CredentialsError{Var: v.name, Reason: fmt.Sprintf("is required with %s, %s and %s (the client credentials grant)",
				EnvTokenURL, EnvClientID, EnvClientSecret)}
		}
	}
	if u, err := url.Parse(tokenURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, &CredentialsError{Var: EnvTokenURL, Reason: fmt.Sprintf("%q is not the identity provider's token endpoint (an http(s) URL)", tokenURL)}
	} else if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		// The client secret would cross the network in the clear.
		return nil, &CredentialsError{Var: EnvTokenURL, Reason: fmt.Sprintf("%q: plain http only on loopback; use https", tokenURL)}
	}
	cfg := clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: tokenURL,
		Scopes: strings.Fields(getenv(EnvTokenScopes))}
	if r := getenv(EnvTokenResource); r != "" {
		cfg.EndpointParams = url.Values{"resource": {r}}
	}
	// The source caches the token and asks for a new one shortly before it expires.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Timeout: tokenTimeout})
	ts := cfg.TokenSource(ctx)
	return func(context.Context) (string, error) {
		t, err := ts.Token()
		if err != nil {
			return "", fmt.Errorf("temporal credential from %s (client %s): %w", tokenURL, id, err)
		}
		return t.AccessToken, nil
	}, nil
}

// DescribeCredential says which Temporal credential the environment configures, for a log line;
// it never includes the secret.
func DescribeCredential(getenv func(string) string) string {
	switch {
	case getenv(EnvTokenFile) != "":
		return "bearer token from " + getenv(EnvTokenFile)
	case getenv(EnvTokenURL) != "":
		return fmt.Sprintf("client credentials of %s at %s", getenv(EnvClientID), getenv(EnvTokenURL))
	case getenv("TEMPORAL_API_KEY") != "":
		return "TEMPORAL_API_KEY"
	}
	return "none"
}

// tokenFile reads a mounted token again whenever the file changes (a platform rotates it).
type tokenFile struct {
	path string

	mu      sync.Mutex
	modTime time.Time
	size    int64
	cached  string
}

func newTokenFile(path string) *tokenFile { return &tokenFile{path: path} }

func (f *tokenFile) token(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fi, err := os.Stat(f.path)
	if err != nil {
		return "", fmt.Errorf("temporal credential (%s): %w", EnvTokenFile, err)
	}
	if f.cached != "" && fi.ModTime().Equal(f.modTime) && fi.Size() == f.size {
		return f.cached, nil
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return "", fmt.Errorf("temporal credential (%s): %w", EnvTokenFile, err)
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" {
		return "", fmt.Errorf("temporal credential (%s): %s is empty", EnvTokenFile, f.path)
	}
	f.cached, f.modTime, f.size = tok, fi.ModTime(), fi.Size()
	return tok, nil
}

// applyCredentials adds the environment's credential unless one is set, and turns TLS off
// for a bearer token sent to a loopback address when nothing said otherwise: the SDK turns
// TLS on by default with API keys, which a local server does not speak.
func applyCredentials(o *client.Options, tlsConfigured bool, getenv func(string) string) error {
	if o.Credentials == nil {
		tok, err := TokenFromEnv(getenv)
		if err != nil {
			return err
		}
		if tok != nil {
			o.Credentials = client.NewAPIKeyDynamicCredentials(tok)
		}
	}
	if o.Credentials != nil && !tlsConfigured && loopbackAddress(o.HostPort) {
		o.ConnectionOptions.TLS = nil
		o.ConnectionOptions.TLSDisabled = true
	}
	return nil
}

// loopbackAddress reports whether host:port names this machine.
func loopbackAddress(hostPort string) bool {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsCredentialsError reports a Temporal credential setting at fault (CLI exit 2).
func IsCredentialsError(err error) bool {
	var ce *CredentialsError
	return errors.As(err, &ce)
}
