package activities

import (
	"context"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
)

// readReleases reads a stack's releases file at rev ("" = main); a stack without one has no releases.
func (a *Activities) readReleases(ctx context.Context, rev, stack string) (*config.Releases, error) {
	files, err := a.Forge.ReadDir(ctx, rev, config.ReleasesDir(stack))
	if err != nil {
		return nil, classify(err)
	}
	r, err := config.ParseReleases(stack, files[config.ReleasesFile])
	if err != nil {
		return nil, invalidConfig(err)
	}
	return r, nil
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
	name := inst.StackName()
	r, err := a.readReleases(ctx, rev, name)
	if err != nil {
		return contract.StackRelease{}, err
	}
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

// loadRelease reads and checks a release's files.
func (a *Activities) loadRelease(ctx context.Context, rel contract.StackRelease) (*config.Stack, error) {
	files, err := a.Forge.ReadDir(ctx, rel.Commit, config.StackDir(rel.Stack))
	if err != nil {
		return nil, classify(err)
	}
	if err := config.VerifyRelease(rel, files); err != nil {
		return nil, invalidConfig(err)
	}
	stack, err := config.LoadStack(rel.Stack, files)
	if err != nil {
		return nil, invalidConfig(err)
	}
	return stack, nil
}
