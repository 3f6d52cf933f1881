package github

import "net/http"

// Option configures a Forge.
type Option func(*config)

type config struct {
	token   string
	baseURL string
	client  *http.Client
	base    string
	app     *appAuth
}

// appAuth is a GitHub App installation slipway acts as.
type appAuth struct {
	id, installation int64
	key              []byte
}

// WithToken authenticates every call with this token (slipway reads it from SLIPWAY_GITHUB_TOKEN).
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithBaseURL points the client at another API root, e.g. "https://ghe.example.com/api/v3/"
// for GitHub Enterprise, or a fake server in tests (default https://api.github.com/).
func WithBaseURL(url string) Option { return func(c *config) { c.baseURL = url } }

// WithHTTPClient sets the HTTP client (proxies, timeouts, custom auth transports).
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.client = client } }

// WithBaseBranch sets the branch pull requests merge into (default "main").
func WithBaseBranch(name string) Option { return func(c *config) { c.base = name } }

// WithApp authenticates as installation installationID of GitHub App appID, signing the app's
// JWTs with keyPEM (the private key file GitHub hands out). Installation tokens are fetched
// and refreshed before they expire; it excludes WithToken.
func WithApp(appID, installationID int64, keyPEM []byte) Option {
	return func(c *config) { c.app = &appAuth{id: appID, installation: installationID, key: keyPEM} }
}
