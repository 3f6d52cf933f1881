package activities

import (
	"context"

	"github.com/slipway-dev/slipway/internal/steps"
)

// ResolveRevision pins main's head for the rest of an attempt.
func (a *Activities) ResolveRevision(ctx context.Context, in steps.RevisionInput) (steps.RevisionOutput, error) {
	head, err := a.Forge.Head(ctx)
	if err != nil {
		return steps.RevisionOutput{}, classify(err)
	}
	inst, err := a.committedInstance(ctx, head, in.Ref)
	if err != nil {
		return steps.RevisionOutput{}, err
	}
	if inst == nil {
		if in.MustExist {
			return steps.RevisionOutput{}, notFoundf("no config for %s on main at %s: %s/%s is missing",
				in.Ref, head, configRef(in.Ref).Dir(), instanceFile)
		}
		return steps.RevisionOutput{Revision: head}, nil
	}
	return steps.RevisionOutput{Revision: head, Exists: true, Stack: inst.Stack}, nil
}
