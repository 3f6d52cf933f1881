package giteastack

import (
	"context"
	"fmt"

	"code.gitea.io/sdk/gitea"
)

// AddWebhook makes Gitea POST push, pull-request and comment events for AdminUser/repo to url as
// JSON, signed with secret (header X-Gitea-Signature, HMAC-SHA256 of the body).
func (s *Server) AddWebhook(ctx context.Context, repo, url, secret string) error {
	switch {
	case repo == "":
		return &InvalidError{Field: "repo", Problem: "must not be empty"}
	case url == "":
		return &InvalidError{Field: "url", Problem: "must not be empty"}
	}
	c, err := s.Client(ctx)
	if err != nil {
		return err
	}
	_, _, err = c.CreateRepoHook(AdminUser, repo, gitea.CreateHookOption{
		Type:   gitea.HookTypeGitea,
		Config: map[string]string{"url": url, "content_type": "json", "secret": secret},
		Events: []string{"push", "pull_request", "issue_comment", "pull_request_comment"},
		Active: true,
	})
	if err != nil {
		return fmt.Errorf("giteastack: add webhook to %s: %w", repo, err)
	}
	return nil
}
