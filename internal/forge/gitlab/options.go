package gitlab

import (
	"net/http"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
)

// TokenVar is the environment variable the GitLab token comes from; errors name it.
const TokenVar = "SLIPWAY_GITLAB_TOKEN"

// Option configures a Forge.
type Option func(*config)

type config struct {
	token      string
	base       string
	httpClient *http.Client
	timeout    time.Duration
}

// WithToken sets the personal/project access token (api scope), normally from SLIPWAY_GITLAB_TOKEN.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithBaseBranch sets the branch MRs merge into (default "main").
func WithBaseBranch(name string) Option { return func(c *config) { c.base = name } }

// WithHTTPClient sets the HTTP client used for every API call.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }

// WithLookupTimeout bounds the project lookup New does (default 30s).
func WithLookupTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

func newConfig(opts []Option) (config, error) {
	c := config{base: "main", timeout: 30 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	switch {
	case strings.TrimSpace(c.token) == "":
		return c, &forge.InvalidError{Field: TokenVar, Problem: "must be set to a GitLab access token with api scope"}
	case forge.CheckRefName("base branch", c.base) != nil:
		return c, forge.CheckRefName("base branch", c.base)
	case c.timeout <= 0:
		return c, &forge.InvalidError{Field: "lookup timeout", Value: c.timeout.String(), Problem: "must be positive"}
	}
	return c, nil
}
