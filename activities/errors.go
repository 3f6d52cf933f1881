package activities

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/argocd"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/steps"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// invalidConfig turns a config error into a non-retryable InvalidConfig error
// whose details name each bad field.
func invalidConfig(err error) error {
	var fields []steps.FieldError
	var (
		ve *config.ValidationError
		se *config.StackError
		me *config.ManifestError
	)
	switch {
	case errors.As(err, &ve):
		fields = fieldErrors(ve.Errors, "")
	case errors.As(err, &se):
		fields = fieldErrors(se.Errors, "stacks/"+se.Stack+": ")
	case errors.As(err, &me):
		fields = []steps.FieldError{{Field: "manifests", Message: me.Error()}}
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), steps.ErrInvalidConfig, nil, fields)
}

func fieldErrors(in []config.FieldError, prefix string) []steps.FieldError {
	out := make([]steps.FieldError, 0, len(in))
	for _, fe := range in {
		out = append(out, steps.FieldError{Field: prefix + fe.Field, Message: fe.Message})
	}
	return out
}

// classify maps an activity's error to the application error the workflows see: first the
// errors that carry data, then stepErrors in order; any other error stays retryable.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var locked *terraform.StateLockedError
	switch {
	case store.IsUnreadable(err):
		// A plan or secret the keyring cannot open: say which key, never use what is there.
		return nonRetryable(steps.ErrUnreadable, err)
	case errors.Is(err, errkind.RateLimited):
		// Back off as long as the forge asked, through the activity's own retries.
		delay, _ := errkind.Delay(err)
		return temporal.NewApplicationErrorWithOptions(err.Error(), steps.ErrRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: delay})
	case isA[*config.ValidationError](err), isA[*config.StackError](err):
		return invalidConfig(err)
	case errors.As(err, &locked) && locked.CreationContention():
		// Another workspace in the same database is being created: wait for it, do not fail.
		return temporal.NewApplicationError(err.Error(), steps.ErrLockContention)
	}
	for _, se := range stepErrors {
		if se.is(err) {
			return nonRetryable(se.typ, err)
		}
	}
	return err
}

// stepErrors maps kinds, and the failures more precise than their kind, to the non-retryable
// application error types the workflows switch on; the first that matches wins.
var stepErrors = []struct {
	is  func(error) bool
	typ string
}{
	{is(errkind.Conflict), steps.ErrMergeConflict},
	{is(errkind.NotFound), steps.ErrNotFound},
	{isA[*terraform.StateLockedError], steps.ErrStateLocked}, // Busy, but a lock an operator may have to break
	{isA[*terraform.HolderAliveError], steps.ErrStateLocked},
	{is(errkind.Invalid), steps.ErrRefused},
	{isA[*terraform.StalePlanError], steps.ErrStalePlan},
	{isA[*terraform.CommandError], steps.ErrTerraform},
	{isA[*terraform.PlanMissingError], steps.ErrTerraform},
	{isA[*argocd.SyncFailedError], steps.ErrDeployFailed},
	{isA[*argocd.UnauthorizedError], steps.ErrDeployFailed}, // Auth, but the deploy is what failed
	{isA[*deploy.NotOwnedError], steps.ErrDeployFailed},
	{isA[*argocd.TimeoutError], steps.ErrDeployTimeout},
	{is(errkind.Auth), steps.ErrRefused},
	{is(errkind.Busy), steps.ErrBusy},
	{is(errkind.NotAllowed), steps.ErrNotAllowed},
	{forge.IsNonRetryable, steps.ErrRefused},  // a moved head, an MR already merged
	{argocd.IsNonRetryable, steps.ErrRefused}, // another 4xx
}

func is(kind errkind.Kind) func(error) bool {
	return func(err error) bool { return errors.Is(err, kind) }
}

func isA[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}

func nonRetryable(kind string, err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), kind, nil)
}

// notFoundf is something the step needs that is not there: non-retryable NotFound.
func notFoundf(format string, args ...any) error {
	return classify(errkind.Errorf(errkind.NotFound, format, args...))
}

// notAllowedf is a request the instance's state, or this worker, does not accept: non-retryable NotAllowed.
func notAllowedf(format string, args ...any) error {
	return classify(errkind.Errorf(errkind.NotAllowed, format, args...))
}
