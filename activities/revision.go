package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge"
)

// ResolveRevision pins main's head for the rest of an attempt.
func (a *Activities) ResolveRevision(ctx context.Context, in contract.RevisionInput) (contract.RevisionOutput, error) {
	head, via, err := a.head(ctx)
	if err != nil {
		return contract.RevisionOutput{}, classify(err)
	}
	inst, err := a.committedInstance(ctx, head, in.Ref)
	if err != nil {
		return contract.RevisionOutput{}, err
	}
	if inst == nil {
		if in.MustExist {
			return contract.RevisionOutput{}, notFoundf("no config for %s on main at %s: %s/%s is missing",
				in.Ref, head, in.Ref.Dir(), instanceFile)
		}
		return contract.RevisionOutput{Revision: head, Via: via}, nil
	}
	out := contract.RevisionOutput{Revision: head, Exists: true, Stack: inst.StackName(), Via: via}
	stack, rel, err := a.instanceStack(ctx, head, inst)
	out.Release = rel.Ref()
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		out.Controls = controls(stack, inst)
		out.UsesOutputs = config.UsesOutputs(stack)
	case errors.As(err, &appErr) && appErr.NonRetryable():
		// A stack broken or gone since the deploy must not block archiving or destroying it:
		// the instance file's own controls still hold. A refused releases file (deleted,
		// replayed, not slipway's) is a commit's, not decay: it must not drop the stack's controls.
		if _, err := a.readReleases(ctx, head, inst.StackName()); err != nil {
			return contract.RevisionOutput{}, err
		}
		out.Controls = controls(&config.Stack{}, inst)
	default:
		return contract.RevisionOutput{}, err
	}
	return out, nil
}

// head is main's head and, when a mirror answered because the forge is down, the mirror's URL.
func (a *Activities) head(ctx context.Context) (string, string, error) {
	m, ok := forge.As[forge.Mirrored](a.Forge)
	if !ok {
		sha, err := a.Forge.Head(ctx)
		return sha, "", err
	}
	sha, url, err := m.HeadVia(ctx)
	if url == a.Forge.RepoURL() {
		url = ""
	}
	return sha, url, err
}

// repoURL is where the deployer reads the repository: the mirror while the forge is down.
func (a *Activities) repoURL(ctx context.Context) string {
	if _, ok := forge.As[forge.Mirrored](a.Forge); !ok {
		return a.Forge.RepoURL()
	}
	if _, via, err := a.head(ctx); err == nil && via != "" {
		return via
	}
	return a.Forge.RepoURL()
}
