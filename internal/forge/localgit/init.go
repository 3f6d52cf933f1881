package localgit

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Init creates a bare repository at repoDir whose base branch has one commit holding seed
// (repo-relative paths), and opens it. An existing repository is left as it is; one that
// has no refs at all (an interrupted Init) gets its initial commit.
func Init(repoDir string, seed map[string][]byte, opts ...Option) (*Forge, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if repoDir == "" {
		return nil, &forge.InvalidError{Field: "repoDir", Problem: "must not be empty"}
	}
	if err := forge.CheckFiles("seed", seed); err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := checkVersion(ctx, cfg); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(repoDir)
	if err != nil {
		return nil, &RepoError{Path: repoDir, Problem: "cannot be made absolute: " + err.Error()}
	}
	_, gitDir, findErr := findRepo(ctx, cfg, abs)
	if findErr != nil {
		if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 {
			return nil, &RepoError{Path: abs, Problem: "exists, is not empty and is not a git repository"}
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, &RepoError{Path: abs, Problem: "cannot be read: " + err.Error()}
		}
		if _, err := newRunner(cfg, "").run(ctx, nil, nil, "init", "-q", "--bare", "--initial-branch="+cfg.base, abs); err != nil {
			return nil, err
		}
		gitDir = abs
	}
	if err := seedRepo(ctx, newRunner(cfg, gitDir), "refs/heads/"+cfg.base, seed); err != nil {
		return nil, err
	}
	return New(abs, opts...)
}

// seedRepo makes the initial commit on baseRef when the repository has no refs yet.
func seedRepo(ctx context.Context, r *runner, baseRef string, seed map[string][]byte) error {
	refs, err := r.out(ctx, "for-each-ref", "--count=1")
	if err != nil || refs != "" {
		return err
	}
	tree, err := r.writeTree(ctx, "", "", seed)
	if err != nil {
		return err
	}
	commit, err := r.commitTree(ctx, tree, "slipway: initialize GitOps repository\n")
	if err != nil {
		return err
	}
	// Zero old value: when two Inits race, the first initial commit wins and the other is dropped.
	if _, err := r.run(ctx, nil, nil, "update-ref", "-m", "slipway: init", baseRef, commit, zeroOID(commit)); err != nil {
		if sha, _ := r.resolve(ctx, baseRef); sha != "" {
			return nil
		}
		return err
	}
	return nil
}
