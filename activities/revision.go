package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
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
	out := steps.RevisionOutput{Revision: head, Exists: true, Stack: inst.Stack}
	stack, err := a.loadStack(ctx, head, inst.Stack)
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		out.Controls = controls(stack, inst)
	case errors.As(err, &appErr) && appErr.NonRetryable():
		// A stack broken or gone since the deploy must not block archiving or destroying it:
		// the instance file's own controls still hold.
		out.Controls = controls(&config.Stack{}, inst)
	default:
		return steps.RevisionOutput{}, err
	}
	return out, nil
}
