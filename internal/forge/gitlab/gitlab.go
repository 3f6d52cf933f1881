// Package gitlab is the forge.Forge backend for a GitLab project, over the REST v4 API
// (gitlab.com/gitlab-org/api/client-go). An MR's ID is its project-scoped IID.
package gitlab

import (
	"context"
	"net/url"
	"strings"
	"sync"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/tracing"
)

// Forge is one GitLab project used as the GitOps repository.
type Forge struct {
	client  *gl.Client
	project string
	cfg     config
	repoURL string

	mu      sync.Mutex
	parents map[string]string // commit → first parent; commits never change
}

var _ forge.Forge = (*Forge)(nil)

// New connects to the GitLab at baseURL (e.g. https://gitlab.com) and looks up project
// ("group/name" or a numeric ID) once, to check the token and read its clone URL.
func New(baseURL, project string, opts ...Option) (*Forge, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &forge.InvalidError{Field: "base URL", Value: baseURL, Problem: "must be an http(s) URL such as https://gitlab.com"}
	}
	project = strings.Trim(project, "/")
	if project == "" || strings.ContainsAny(project, " \n\x00") {
		return nil, &forge.InvalidError{Field: "project", Value: project, Problem: `must be "group/name" or a numeric project ID`}
	}
	clientOpts := []gl.ClientOptionFunc{gl.WithBaseURL(baseURL), gl.WithoutRetries()} // activities own retries and backoff
	// Each call is a span of the step that makes it; the library's retry wrapper stays around it.
	clientOpts = append(clientOpts, gl.WithHTTPClient(tracing.HTTPClient(cfg.httpClient)))
	client, err := gl.NewClient(cfg.token, clientOpts...)
	if err != nil {
		return nil, &forge.InvalidError{Field: "base URL", Value: baseURL, Problem: err.Error()}
	}
	f := &Forge{client: client, project: project, cfg: cfg, parents: map[string]string{}}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	p, resp, err := client.Projects.GetProject(project, nil, gl.WithContext(ctx))
	if err != nil {
		return nil, f.translate("get project", "project", resp, err)
	}
	if p.MergeMethod != "" && p.MergeMethod != gl.NoFastForwardMerge {
		return nil, &forge.InvalidError{Field: "merge_method", Value: string(p.MergeMethod),
			Problem: "project " + project + ` must use merge commits (Settings > Merge requests > Merge method: "Merge commit")`}
	}
	f.repoURL = p.HTTPURLToRepo
	return f, nil
}

// Name is "gitlab".
func (f *Forge) Name() string { return "gitlab" }

// RepoURL is the project's HTTPS clone URL (http_url_to_repo).
func (f *Forge) RepoURL() string { return f.repoURL }

// Head returns the base branch's commit SHA.
func (f *Forge) Head(ctx context.Context) (string, error) {
	b, resp, err := f.client.Branches.GetBranch(f.project, f.cfg.base, gl.WithContext(ctx))
	if err != nil {
		return "", f.translate("get branch "+f.cfg.base, "base branch "+f.cfg.base, resp, err)
	}
	if b.Commit == nil || b.Commit.ID == "" {
		return "", &APIError{Op: "get branch " + f.cfg.base, Status: status(resp), Message: "response has no commit"}
	}
	return b.Commit.ID, nil
}
