package activities

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/argocd"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/deploy"
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

// classify maps client errors to typed application errors; unknown errors stay retryable.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var (
		conflict *forge.ConflictError
		notFound *forge.NotFoundError
		locked   *terraform.StateLockedError
		alive    *terraform.HolderAliveError
		badInput *terraform.InvalidInputError
		tfNF     *terraform.NotFoundError
		cmdErr   *terraform.CommandError
		missing  *terraform.PlanMissingError
		stale    *terraform.StalePlanError
		ve       *config.ValidationError
		se       *config.StackError
		syncErr  *argocd.SyncFailedError
		timeout  *argocd.TimeoutError
		unauth   *argocd.UnauthorizedError
		foreign  *deploy.NotOwnedError
	)
	var limited *forge.RateLimitError
	switch {
	case store.IsUnreadable(err):
		// A plan or secret the keyring cannot open: say which key, never use what is there.
		return nonRetryable(contract.ErrUnreadable, err)
	case errors.As(err, &limited):
		// Back off as long as the forge asked, through the activity's own retries.
		return temporal.NewApplicationErrorWithOptions(err.Error(), contract.ErrRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: limited.RetryAfter})
	case errors.As(err, &ve), errors.As(err, &se):
		return invalidConfig(err)
	case errors.As(err, &conflict):
		return nonRetryable(contract.ErrMergeConflict, err)
	case errors.As(err, &notFound), errors.As(err, &tfNF):
		return nonRetryable(contract.ErrNotFound, err)
	case errors.As(err, &locked) && locked.CreationContention():
		// Another workspace in the same database is being created: wait for it, do not fail.
		return temporal.NewApplicationError(err.Error(), contract.ErrLockContention)
	case errors.As(err, &locked), errors.As(err, &alive):
		return nonRetryable(contract.ErrStateLocked, err)
	case errors.As(err, &badInput):
		return nonRetryable(contract.ErrRefused, err)
	case errors.As(err, &stale):
		return nonRetryable(contract.ErrStalePlan, err)
	case errors.As(err, &cmdErr), errors.As(err, &missing):
		return nonRetryable(contract.ErrTerraform, err)
	case errors.As(err, &syncErr), errors.As(err, &unauth), errors.As(err, &foreign):
		return nonRetryable(contract.ErrDeployFailed, err)
	case errors.As(err, &timeout):
		return nonRetryable(contract.ErrDeployTimeout, err)
	case forge.IsNonRetryable(err), argocd.IsNonRetryable(err):
		return nonRetryable(contract.ErrRefused, err)
	}
	return err
}

func nonRetryable(kind string, err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), kind, nil)
}

func notFoundf(format string, args ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, args...), contract.ErrNotFound, nil)
}
