// Package github is the forge backend for a GitOps repository on GitHub (or GitHub
// Enterprise): an MR is a pull request whose branch holds one commit built with the git
// data API (one tree, one commit per change), merged with a merge commit.
package github

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	gh "github.com/google/go-github/v62/github"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/tracing"
)

// Forge is a forge.Forge over one GitHub repository. It is safe for concurrent use.
type Forge struct {
	owner, repo string
	base        string
	client      *gh.Client
	repoURL     string
	credential  string // what authenticates the calls, named in auth errors
	pageSize    int
	parents     sync.Map // commit SHA → first parent SHA; commits never change, so this never goes stale
}

var _ forge.Forge = (*Forge)(nil)

var namePart = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// New returns a forge for github.com/owner/repo. It makes no API call.
func New(owner, repo string, opts ...Option) (*Forge, error) {
	cfg := config{baseURL: "https://api.github.com/", base: "main"}
	for _, o := range opts {
		o(&cfg)
	}
	if !namePart.MatchString(owner) {
		return nil, &forge.InvalidError{Field: "owner", Value: owner, Problem: "must be a GitHub user or organization name"}
	}
	if !namePart.MatchString(repo) || repo == "." || repo == ".." {
		return nil, &forge.InvalidError{Field: "repo", Value: repo, Problem: "must be a GitHub repository name"}
	}
	if err := forge.CheckRefName("base branch", cfg.base); err != nil {
		return nil, err
	}
	if cfg.app != nil && cfg.token != "" {
		return nil, &forge.InvalidError{Field: TokenVar, Problem: "set either a token or a GitHub App (" + AppIDVar + "), not both"}
	}
	if strings.ContainsAny(cfg.token, " \t\r\n") {
		return nil, &forge.InvalidError{Field: TokenVar, Problem: "must not contain whitespace"}
	}
	api, err := url.Parse(cfg.baseURL)
	if err != nil || (api.Scheme != "https" && api.Scheme != "http") || api.Host == "" {
		return nil, &forge.InvalidError{Field: "base URL", Value: cfg.baseURL, Problem: "must be an http(s) URL like https://ghe.example.com/api/v3/"}
	}
	if !strings.HasSuffix(api.Path, "/") {
		api.Path += "/" // go-github resolves paths relative to the base URL
	}
	hc := cfg.client
	if hc == nil {
		hc = &http.Client{}
	}
	traced := tracing.HTTPClient(hc) // each call is a span of the step that makes it
	if cfg.app != nil {
		tr, err := appTransport(traced.Transport, hc, api.String(), cfg.app)
		if err != nil {
			return nil, err
		}
		traced.Transport = tr
	}
	client := gh.NewClient(traced)
	if cfg.token != "" {
		client = client.WithAuthToken(cfg.token)
	}
	client.BaseURL = api
	return &Forge{owner: owner, repo: repo, base: cfg.base, client: client,
		repoURL: cloneURL(api, owner, repo), credential: credential(cfg.app), pageSize: 100}, nil
}

// cloneURL derives the HTTPS clone URL from the API root: api.github.com → github.com,
// GitHub Enterprise's /api/v3/ → the host's root, anything else (a fake) → beside the API.
func cloneURL(api *url.URL, owner, repo string) string {
	web := *api
	switch {
	case web.Host == "api.github.com":
		web.Host, web.Path = "github.com", "/"
	case strings.HasSuffix(web.Path, "/api/v3/"):
		web.Path = strings.TrimSuffix(web.Path, "api/v3/")
	}
	web.RawQuery, web.Fragment = "", ""
	return strings.TrimSuffix(web.String(), "/") + "/" + owner + "/" + repo + ".git"
}

// Name identifies the backend.
func (f *Forge) Name() string { return "github" }

// RepoURL is the repository's HTTPS clone URL.
func (f *Forge) RepoURL() string { return f.repoURL }

func (f *Forge) fullName() string { return f.owner + "/" + f.repo }

// Head returns the commit SHA of the base branch.
func (f *Forge) Head(ctx context.Context) (string, error) {
	sha, ok, err := f.branchHead(ctx, f.base)
	if err == nil && !ok {
		err = &forge.NotFoundError{What: "base branch " + f.base + " of github repository " + f.fullName()}
	}
	return sha, err
}

// branchHead reads a branch's commit SHA; ok is false when the branch does not exist.
func (f *Forge) branchHead(ctx context.Context, branch string) (sha string, ok bool, err error) {
	ref, _, err := f.client.Git.GetRef(ctx, f.owner, f.repo, "heads/"+branch)
	if statusOf(err) == http.StatusNotFound {
		// GitHub answers 404 for a missing repository too: tell the two apart once.
		if _, _, repoErr := f.client.Repositories.Get(ctx, f.owner, f.repo); repoErr != nil {
			return "", false, f.classify("get repository", repoErr)
		}
		return "", false, nil
	}
	if err != nil {
		return "", false, f.classify("get branch "+branch, err)
	}
	return ref.GetObject().GetSHA(), true, nil
}
