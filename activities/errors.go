package activities

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
	"github.com/slipway-dev/slipway/internal/deploy/argocd"
	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/store"
	"github.com/slipway-dev/slipway/internal/terraform"
)

// invalidConfig turns a config error into a non-retryable InvalidConfig error
// whose details name each bad field.
func invalidConfig(err error) error {
	var fields []contract.FieldError
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
		fields = []contract.FieldError{{Field: "manifests", Message: me.Error()}}
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrInvalidConfig, nil, fields)
}

func fieldErrors(in []config.FieldError, prefix string) []contract.FieldError {
	out := make([]contract.FieldError, 0, len(in))
	for _, fe := range in {
		out = append(out, contract.FieldError{Field: prefix + fe.Field, Message: fe.Message})
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
		return nonRetryable(contract.ErrUnreadable, err)
	case errors.Is(err, errkind.RateLimited):
		// Back off as long as the forge asked, through the activity's own retries.
		delay, _ := errkind.Delay(err)
		return temporal.NewApplicationErrorWithOptions(err.Error(), contract.ErrRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: delay})
	case isA[*config.ValidationError](err), isA[*config.StackError](err):
		return invalidConfig(err)
	case isA[*terraform.KilledError](err):
		// Killed by the OOM killer or a dying worker, not failed on the change: the step runs
		// again within its budget, as after a worker crash.
		return temporal.NewApplicationError(err.Error(), contract.ErrTerraformKilled)
	case errors.As(err, &locked) && locked.CreationContention(), isA[*forge.LockedError](err):
		// Another workspace in the same database is being created, or another live writer holds
		// the GitOps repository's lock: wait for it, do not fail.
		return temporal.NewApplicationError(err.Error(), contract.ErrLockContention)
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
	{is(errkind.Conflict), contract.ErrMergeConflict},
	{is(errkind.NotFound), contract.ErrNotFound},
	{isA[*terraform.StateLockedError], contract.ErrStateLocked}, // Busy, but a lock an operator may have to break
	{isA[*terraform.HolderAliveError], contract.ErrStateLocked},
	{is(errkind.Invalid), contract.ErrRefused},
	{isA[*terraform.StalePlanError], contract.ErrStalePlan},
	{isA[*terraform.CommandError], contract.ErrTerraform},
	{isA[*terraform.PlanMissingError], contract.ErrTerraform},
	{isA[*argocd.SyncFailedError], contract.ErrDeployFailed},
	{isA[*argocd.LeftOnClustersError], contract.ErrDeployFailed}, // what is left is on record per cluster; retry once they answer
	{isA[*argocd.UnauthorizedError], contract.ErrDeployFailed},   // Auth, but the deploy is what failed
	{isA[*deploy.NotOwnedError], contract.ErrDeployFailed},
	{isA[*argocd.TimeoutError], contract.ErrDeployTimeout},
	{is(errkind.Auth), contract.ErrRefused},
	{is(errkind.Busy), contract.ErrBusy},
	{is(errkind.NotAllowed), contract.ErrNotAllowed},
	{forge.IsNonRetryable, contract.ErrRefused},  // a moved head, an MR already merged
	{argocd.IsNonRetryable, contract.ErrRefused}, // another 4xx
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
