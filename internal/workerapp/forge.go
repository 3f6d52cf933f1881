package workerapp

import (
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/forge/gitea"
	"github.com/slipway-dev/slipway/internal/forge/github"
	"github.com/slipway-dev/slipway/internal/forge/gitlab"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/forge/mirror"
)

// NewForge builds the GitOps repository's forge from cfg (SLIPWAY_FORGE and friends), read
// through SLIPWAY_FORGE_MIRROR while it is down when that is set.
func NewForge(cfg Config) (forge.Forge, error) {
	fg, err := newForge(cfg)
	if err != nil || cfg.ForgeMirror == "" {
		return fg, err
	}
	m, err := localgit.New(cfg.ForgeMirror)
	if err != nil {
		return nil, fmt.Errorf("SLIPWAY_FORGE_MIRROR: %w", err)
	}
	return mirror.New(fg, m), nil
}

// NewStacks opens the stacks repository (SLIPWAY_STACKS_REPO) for reading; nil when it is not set.
func NewStacks(cfg Config) (forge.Forge, error) {
	if cfg.StacksRepo == "" {
		return nil, nil
	}
	fg, err := localgit.New(cfg.StacksRepo)
	if err != nil {
		return nil, fmt.Errorf("SLIPWAY_STACKS_REPO: %w", err)
	}
	return fg, nil
}

func newForge(cfg Config) (forge.Forge, error) {
	f := cfg.Forge
	switch cfg.forgeKind() {
	case "localgit":
		if cfg.GitOpsRepo == "" {
			return nil, fmt.Errorf("SLIPWAY_GITOPS_REPO: set it to the GitOps git repository's path")
		}
		fg, err := localgit.New(cfg.GitOpsRepo)
		if err != nil {
			return nil, fmt.Errorf("SLIPWAY_GITOPS_REPO: %w", err)
		}
		return fg, nil
	case "github":
		owner, repo, err := ownerRepo(f.Repo)
		if err != nil {
			return nil, err
		}
		opts := []github.Option{github.WithToken(f.Token)}
		if f.App.set() {
			if err := cfg.validateGitHubApp(); err != nil {
				return nil, err
			}
			opt, err := f.App.option()
			if err != nil {
				return nil, err
			}
			opts = append(opts, opt)
		}
		if f.URL != "" {
			opts = append(opts, github.WithBaseURL(f.URL))
		}
		return github.New(owner, repo, opts...)
	case "gitlab":
		if f.URL == "" || f.Repo == "" {
			return nil, fmt.Errorf("SLIPWAY_FORGE_URL and SLIPWAY_FORGE_REPO: set the GitLab API URL and the project path")
		}
		return gitlab.New(f.URL, f.Repo, gitlab.WithToken(f.Token))
	case "gitea", "forgejo":
		owner, repo, err := ownerRepo(f.Repo)
		if err != nil {
			return nil, err
		}
		if f.URL == "" {
			return nil, fmt.Errorf("SLIPWAY_FORGE_URL: set it to the Gitea/Forgejo base URL")
		}
		return gitea.New(f.URL, owner, repo, gitea.WithToken(f.Token))
	}
	return nil, fmt.Errorf("SLIPWAY_FORGE: %q is not one of localgit, github, gitlab, gitea, forgejo", f.Kind)
}

func ownerRepo(s string) (string, string, error) {
	owner, repo, ok := strings.Cut(s, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return "", "", fmt.Errorf("SLIPWAY_FORGE_REPO: %q must be OWNER/REPO", s)
	}
	return owner, repo, nil
}
