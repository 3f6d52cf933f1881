package activities

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// readReleases reads a stack's releases file at rev ("" = main); a stack without one has no releases.
func (a *Activities) readReleases(ctx context.Context, rev, stack string) (*config.Releases, error) {
	files, err := a.readSharedDir(ctx, rev, config.ReleasesDir(stack))
	if err != nil {
		return nil, classify(err)
	}
	data := files[config.ReleasesFile]
	r, err := config.ParseReleases(stack, data)
	if err != nil {
		return nil, invalidConfig(err)
	}
	if len(bytes.TrimSpace(data)) > 0 && a.Seals != nil && !a.Seals.Sealed(r.Seal, r.Sealed()) {
		return nil, invalidConfig(fieldError(config.ReleasesDir(stack)+"/"+config.ReleasesFile,
			"not written by slipway: its seal does not verify. Releases are cut and channels moved only by `slipway stack release` and `slipway stack channel`; restore the file as slipway's last MR merged it"))
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := a.fresh(ctx, rev, r); err != nil {
			return nil, err
		}
	} else if err := a.notDeleted(ctx, rev, stack); err != nil {
		return nil, err
	}
	return r, nil
}

// seal signs r as slipway's next write of it before it is written.
func (a *Activities) seal(r *config.Releases) {
	r.Seal = ""
	r.Generation++
	if a.Seals != nil {
		r.Seal = a.Seals.Seal(r.Sealed())
	}
}

// resolveRelease resolves a version or a channel of stack, on main, to its release. An unknown
// one is bad input naming it and listing the known ones.
func (a *Activities) resolveRelease(ctx context.Context, stack, release string) (contract.StackRelease, error) {
	return a.resolveReleaseAt(ctx, "", stack, release)
}

func (a *Activities) resolveReleaseAt(ctx context.Context, rev, stack, release string) (contract.StackRelease, error) {
	r, err := a.readReleases(ctx, rev, stack)
	if err != nil {
		return contract.StackRelease{}, err
	}
	rel, err := r.Resolve("stack", release)
	if err != nil {
		return contract.StackRelease{}, invalidConfig(err)
	}
	return rel, nil
}

// instanceRelease is the release inst renders, as the releases file at rev says: the one it pins,
// else its stack's default channel's; a release with no commit (unpinned, or a channel on head)
// is the stack at rev itself.
func (a *Activities) instanceRelease(ctx context.Context, rev string, inst *config.Instance) (contract.StackRelease, error) {
	r, err := a.readReleases(ctx, rev, inst.StackName())
	if err != nil {
		return contract.StackRelease{}, err
	}
	return releaseOf(r, inst)
}

// releaseOf is instanceRelease from the stack's releases file already read.
func releaseOf(r *config.Releases, inst *config.Instance) (contract.StackRelease, error) {
	name := inst.StackName()
	release := inst.Release()
	if release == "" {
		release = r.Default
	}
	if release == "" {
		return contract.StackRelease{Stack: name}, nil
	}
	rel, err := r.Resolve("stack", release)
	if err != nil {
		return contract.StackRelease{}, invalidConfig(err)
	}
	return rel, nil
}

// instanceStack loads the stack inst renders at rev: its release's files at the commit the release
// was cut from (checked against the tree hash recorded then), or the stack at rev when unpinned.
// Every render and every read of the stack an operation makes goes through it, so a pinned
// instance never picks up what was merged into stacks/<name>/ since its release.
func (a *Activities) instanceStack(ctx context.Context, rev string, inst *config.Instance) (*config.Stack, contract.StackRelease, error) {
	rel, err := a.instanceRelease(ctx, rev, inst)
	if err != nil {
		return nil, rel, err
	}
	if rel.Commit == "" {
		st, err := a.loadStack(ctx, rev, inst.StackName())
		return st, rel, err
	}
	st, err := a.loadRelease(ctx, rel)
	return st, rel, err
}

// releaseStack loads a release resolved on main: its files, or main's stack for a channel on head.
func (a *Activities) releaseStack(ctx context.Context, rel contract.StackRelease) (*config.Stack, error) {
	if rel.Commit == "" {
		return a.loadStack(ctx, "", rel.Stack)
	}
	return a.loadRelease(ctx, rel)
}

// loadRelease reads, checks and loads a release's files (releaseDir).
func (a *Activities) loadRelease(ctx context.Context, rel contract.StackRelease) (*config.Stack, error) {
	files, err := a.releaseDir(ctx, rel)
	if err != nil {
		return nil, err
	}
	stack, err := config.LoadStack(rel.Stack, files)
	if err != nil {
		return nil, invalidConfig(err)
	}
	return stack, nil
}

// releaseDir reads a release's files, from the repository it was cut from (the stacks
// repository it names, else the GitOps repository), checked against its tree hash.
func (a *Activities) releaseDir(ctx context.Context, rel contract.StackRelease) (map[string][]byte, error) {
	fg := a.Forge
	if rel.Repo != "" {
		if a.Stacks == nil || a.Stacks.RepoURL() != rel.Repo {
			have := "is not set"
			if a.Stacks != nil {
				have = "is " + a.Stacks.RepoURL()
			}
			return nil, invalidConfig(fieldError("stack", fmt.Sprintf("release %s@%s was cut from the stacks repository %s, and this worker's SLIPWAY_STACKS_REPO %s: set it to that repository on every worker",
				rel.Stack, rel.Version, rel.Repo, have)))
		}
		fg = a.Stacks
	}
	files, err := readSharedDirOf(ctx, fg, rel.Commit, config.StackDir(rel.Stack))
	if err != nil {
		return nil, classify(err)
	}
	if err := config.VerifyRelease(rel, files); err != nil {
		return nil, invalidConfig(err)
	}
	return files, nil
}

// repin is the instance file data pinned to release to of its own stack, which must exist at rev:
// a bad one is bad input naming --to.
func (a *Activities) repin(ctx context.Context, rev string, data []byte, to string) ([]byte, error) {
	inst, err := config.ParseInstance(data)
	if err != nil {
		return nil, invalidConfig(err)
	}
	name := inst.StackName()
	if other, release, ok := strings.Cut(to, "@"); ok {
		if other != name {
			return nil, invalidConfig(fieldError("--to", fmt.Sprintf("%q is a release of stack %s; the instance runs stack %s", to, other, name)))
		}
		to = release
	}
	r, err := a.readReleases(ctx, rev, name)
	if err != nil {
		return nil, err
	}
	if _, err := r.Resolve("--to", to); err != nil {
		return nil, invalidConfig(err)
	}
	inst.Stack = name + "@" + to
	return inst.Canonical(), nil
}

// renderTo renders a plan's config (the proposed one, else the one committed at its revision)
// pinned to in.To, against the releases file at that revision.
func (a *Activities) renderTo(ctx context.Context, in contract.TerraformInput) (map[string][]byte, error) {
	data := []byte(in.ConfigYAML)
	if in.ConfigYAML == "" {
		_, committed, err := a.instanceDir(ctx, in.Ref, in.Revision)
		if err != nil {
			return nil, err
		}
		data = committed
	}
	data, err := a.repin(ctx, in.Revision, data, in.To)
	if err != nil {
		return nil, err
	}
	return a.render(ctx, in.Revision, in.Ref, data)
}
