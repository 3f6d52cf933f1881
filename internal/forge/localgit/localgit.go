// Package localgit is the embedded-default forge: the GitOps repository is a git
// repository on disk and an MR is a branch with one commit, merged --no-ff into the base
// branch. Only git plumbing is used: in a non-bare repository the base branch moves but
// the work tree and the index are never touched.
package localgit

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Forge is a forge.Forge over a git repository on disk. It is safe for concurrent use,
// also by several processes on the same repository.
type Forge struct {
	path string // absolute repository path as given (work tree for non-bare repos)
	base string
	cfg  config
	git  *runner
}

var _ forge.Forge = (*Forge)(nil)

// New opens the git repository at repoDir, which must have the base branch.
func New(repoDir string, opts ...Option) (*Forge, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if err := checkVersion(ctx, cfg); err != nil {
		return nil, err
	}
	abs, gitDir, err := findRepo(ctx, cfg, repoDir)
	if err != nil {
		return nil, err
	}
	f := &Forge{path: abs, base: cfg.base, cfg: cfg, git: newRunner(cfg, gitDir)}
	if err := f.checkRefName(ctx, "base branch", cfg.base); err != nil {
		return nil, err
	}
	head, err := f.git.resolve(ctx, f.baseRef()+"^{commit}")
	if err != nil {
		return nil, err
	}
	if head == "" {
		return nil, &RepoError{Path: abs, Problem: "has no branch " + cfg.base}
	}
	return f, nil
}

// Name identifies the backend.
func (f *Forge) Name() string { return "localgit" }

// RepoURL is a file:// URL of the repository that git (and ArgoCD) can clone.
func (f *Forge) RepoURL() string { return "file://" + f.path }

// Head returns the commit SHA of the base branch.
func (f *Forge) Head(ctx context.Context) (string, error) {
	sha, err := f.git.resolve(ctx, f.baseRef()+"^{commit}")
	if err == nil && sha == "" {
		err = &forge.NotFoundError{What: "base branch " + f.base + " of " + f.path}
	}
	return sha, err
}

func (f *Forge) baseRef() string { return "refs/heads/" + f.base }

func (f *Forge) mrURL(branch string) string { return f.RepoURL() + "#" + branch }

// findRepo returns repoDir as an absolute path and its git directory. repoDir must be the
// repository itself (bare repo, git dir, or work tree top), not somewhere inside one.
func findRepo(ctx context.Context, cfg config, repoDir string) (abs, gitDir string, err error) {
	if repoDir == "" {
		return "", "", &forge.InvalidError{Field: "repoDir", Problem: "must not be empty"}
	}
	if abs, err = filepath.Abs(repoDir); err != nil {
		return "", "", &RepoError{Path: repoDir, Problem: "cannot be made absolute: " + err.Error()}
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", "", &RepoError{Path: abs, Problem: "is not a directory"}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", "", &RepoError{Path: abs, Problem: "cannot be resolved: " + err.Error()}
	}
	r := newRunner(cfg, "")
	r.env = append(r.env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(real)) // never climb to an enclosing repo
	gitDir, err = r.out(ctx, "-C", real, "rev-parse", "--absolute-git-dir")
	if err != nil || gitDir == "" {
		return "", "", &RepoError{Path: abs, Problem: "is not a git repository"}
	}
	if gitDir != real {
		// Not the git dir itself, so it must be the top of the work tree.
		top, err := r.out(ctx, "-C", real, "rev-parse", "--show-toplevel")
		if err != nil || top != real {
			return "", "", &RepoError{Path: abs, Problem: "is inside a git repository, not one itself"}
		}
	}
	return abs, gitDir, nil
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)`)

func checkVersion(ctx context.Context, cfg config) error {
	out, err := newRunner(cfg, "").out(ctx, "version")
	if err != nil {
		return err
	}
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return &VersionError{Binary: cfg.gitBinary, Have: out}
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if major < 2 || major == 2 && minor < 38 {
		return &VersionError{Binary: cfg.gitBinary, Have: m[0]}
	}
	return nil
}
