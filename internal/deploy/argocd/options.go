package argocd

import (
	"net/http"
	"time"
)

// Defaults for a Client.
const (
	DefaultPollInterval = time.Second
	DefaultDestination  = "https://kubernetes.default.svc"
	DefaultProject      = "default"
)

// Option configures a Client.
type Option func(*Client) error

// WithHTTPClient sets the HTTP client (TLS roots, proxies, timeouts).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) error {
		if hc == nil {
			return &InvalidInputError{Field: "http client", Reason: "must not be nil"}
		}
		c.http = hc
		return nil
	}
}

// WithPollInterval sets how often Deploy and Remove read the application while waiting.
func WithPollInterval(d time.Duration) Option {
	return func(c *Client) error {
		if d <= 0 {
			return &InvalidInputError{Field: "poll interval", Reason: "must be positive, got " + d.String()}
		}
		c.poll = d
		return nil
	}
}

// WithDestination sets the destination cluster's API server URL as ArgoCD knows it.
func WithDestination(server string) Option {
	return func(c *Client) error {
		if server == "" {
			return &InvalidInputError{Field: "destination server", Reason: "must not be empty"}
		}
		c.destination = server
		return nil
	}
}

// WithProject sets the project of the client's per-app calls (default: "default"). The
// Deployer does not use it for instances: each tenant's apps are in ProjectName(tenant).
func WithProject(name string) Option {
	return func(c *Client) error {
		if name == "" {
			return &InvalidInputError{Field: "project", Reason: "must not be empty"}
		}
		c.project = name
		return nil
	}
}
