package giteastack

import (
	"context"
	"fmt"

	"code.gitea.io/sdk/gitea"
)

// Client is an SDK client for the admin user, bound to ctx.
func (s *Server) Client(ctx context.Context) (*gitea.Client, error) {
	c, err := gitea.NewClient(s.URL, gitea.SetToken(s.Token), gitea.SetContext(ctx), gitea.SetHTTPClient(s.http))
	if err != nil {
		return nil, fmt.Errorf("giteastack: client: %w", err)
	}
	return c, nil
}

// CreateRepo creates a public repository AdminUser/name with one initial commit on main
// and returns its HTTPS-style clone URL. It allows "manually merged" PRs, as slipway's GitOps
// repositories should: a merge cut off by a lost request is then recorded as merged.
func (s *Server) CreateRepo(ctx context.Context, name string) (cloneURL string, err error) {
	if name == "" {
		return "", &InvalidError{Field: "name", Problem: "must not be empty"}
	}
	c, err := s.Client(ctx)
	if err != nil {
		return "", err
	}
	repo, _, err := c.CreateRepo(gitea.CreateRepoOption{Name: name, AutoInit: true, DefaultBranch: "main",
		Readme: "Default", Description: "created by slipway giteastack"})
	if err != nil {
		return "", fmt.Errorf("giteastack: create repo %s: %w", name, err)
	}
	allow := true
	if _, _, err := c.EditRepo(s.AdminUser, name, gitea.EditRepoOption{AllowManualMerge: &allow}); err != nil {
		return "", fmt.Errorf("giteastack: allow manual merges on %s: %w", name, err)
	}
	return repo.CloneURL, nil
}
