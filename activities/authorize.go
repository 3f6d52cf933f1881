package activities

import (
	"context"
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/policy"
)

// Authorize asks the policy whether in.Actor may do in.Operation, and whether a person must
// approve first. Workflows run it as a local activity, so the decision (and the policy's hash)
// is recorded in history and replays. Bad input and a policy that cannot decide are
// non-retryable: the same input gets the same answer.
func (a *Activities) Authorize(ctx context.Context, in policy.Input) (policy.Decision, error) {
	e := a.Policy
	if e == nil {
		// A worker built without one (tests, benchmarks) gets the platform's default, never no policy.
		e = policy.Default()
	}
	d, err := e.Decide(ctx, in)
	if err == nil {
		return d, nil
	}
	var (
		bad       *policy.InputError
		undecl    *policy.UndeclaredGroupError
		evalError *policy.EvalError
	)
	switch {
	case errors.As(err, &bad):
		return policy.Decision{}, temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrPolicyInput, nil,
			[]contract.FieldError{{Field: bad.Field, Message: bad.Message}})
	case errors.As(err, &undecl), errors.As(err, &evalError):
		return policy.Decision{}, nonRetryable(contract.ErrPolicy, err)
	}
	return policy.Decision{}, err
}
