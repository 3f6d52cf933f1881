package gitea

import (
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/tracing"
)

// EnvToken is where WithToken's value usually comes from; errors name it.
const EnvToken = "SLIPWAY_GITEA_TOKEN"

// Option configures a Forge.
type Option func(*config)

type config struct {
	token      string
	base       string
	httpClient *http.Client
	checkWait  time.Duration
}

func defaultConfig() config {
	return config{token: os.Getenv(EnvToken), base: "main", checkWait: 60 * time.Second}
}

// WithToken sets the access token (default: $SLIPWAY_GITEA_TOKEN).
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithBaseBranch sets the branch PRs merge into (default "main").
func WithBaseBranch(name string) Option { return func(c *config) { c.base = name } }

// WithHTTPClient sets the HTTP client (default: one with a 60s timeout).
func WithHTTPClient(h *http.Client) Option { return func(c *config) { c.httpClient = h } }

// WithMergeCheckWait bounds how long Merge waits for Gitea's background mergeability
// check before it returns a retryable *NotMergeableError (default 60s).
func WithMergeCheckWait(d time.Duration) Option { return func(c *config) { c.checkWait = d } }

func newConfig(opts []Option) (config, error) {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	if c.httpClient == nil {
		c.httpClient = &http.Client{Timeout: 60 * time.Second}
	}
	c.httpClient = tracing.HTTPClient(c.httpClient) // each call is a span of the step that makes it
	switch {
	case strings.TrimSpace(c.token) == "":
		return c, &forge.InvalidError{Field: "token", Problem: "must not be empty: set " + EnvToken + " or use WithToken"}
	case c.base == "" || forge.CheckRefName("base branch", c.base) != nil:
		return c, &forge.InvalidError{Field: "base branch", Value: c.base, Problem: "must be a valid branch name"}
	case c.checkWait < 0:
		return c, &forge.InvalidError{Field: "merge check wait", Value: c.checkWait.String(), Problem: "must not be negative"}
	}
	return c, nil
}
