// Package gitea is the forge.Forge backend for Gitea and Forgejo, over the REST API
// (code.gitea.io/sdk/gitea). A change is one commit made by the "change files" API on a new
// branch, then a pull request; merges are merge commits pinned to the reviewed head.
package gitea

import (
	"context"
	"net/url"
	"strings"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Forge is one Gitea repository as slipway's GitOps repository.
type Forge struct {
	baseURL     string
	owner, repo string
	cfg         config
}

var _ forge.Forge = (*Forge)(nil)

// New returns a forge for owner/repo on the Gitea at baseURL (e.g. https://git.example.com).
// It makes no network call.
func New(baseURL, owner, repo string, opts ...Option) (*Forge, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &forge.InvalidError{Field: "base URL", Value: baseURL, Problem: "must be an http(s) URL with a host"}
	}
	for field, v := range map[string]string{"owner": owner, "repo": repo} {
		if v == "" || strings.ContainsAny(v, "/ \t\n?#%") {
			return nil, &forge.InvalidError{Field: field, Value: v, Problem: "must be a non-empty name without /, spaces, ?, # or %"}
		}
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return &Forge{baseURL: strings.TrimSuffix(baseURL, "/"), owner: owner, repo: repo, cfg: cfg}, nil
}

// Name is "gitea".
func (f *Forge) Name() string { return "gitea" }

// RepoURL is the HTTP(S) clone URL.
func (f *Forge) RepoURL() string { return f.baseURL + "/" + f.owner + "/" + f.repo + ".git" }

// client is an SDK client bound to ctx; one per call because the SDK keeps ctx on the client.
func (f *Forge) client(ctx context.Context) *sdk.Client {
	// SetGiteaVersion("") skips the SDK's version probe, so construction never hits the network.
	c, _ := sdk.NewClient(f.baseURL, sdk.SetToken(f.cfg.token), sdk.SetContext(ctx),
		sdk.SetHTTPClient(f.cfg.httpClient), sdk.SetGiteaVersion(""), sdk.SetUserAgent("slipway"))
	return c
}

func (f *Forge) repoWhat() string { return "repository " + f.owner + "/" + f.repo }
