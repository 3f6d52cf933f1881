package client

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
)

// NotFoundError: the instance was never created (or its workflow is gone).
type NotFoundError struct{ Instance string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("instance %s does not exist: create it first with `slipway create %s -f FILE`", e.Instance, e.Instance)
}

// RejectedError: the instance's state (or the request) does not allow it. Nothing changed.
// Busy says the instance runs another operation: the same request may succeed later.
type RejectedError struct {
	Message string
	Busy    bool
}

func (e *RejectedError) Error() string { return "rejected: " + e.Message }

// InvalidConfigError: the config is wrong; Fields names each bad field. Nothing changed.
type InvalidConfigError struct {
	Message string
	Fields  []contract.FieldError
}

func (e *InvalidConfigError) Error() string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	lines := []string{"invalid instance config:"}
	for _, f := range e.Fields {
		lines = append(lines, fmt.Sprintf("  %s: %s", f.Field, f.Message))
	}
	return strings.Join(lines, "\n")
}

// UnavailableError: no Temporal frontend answered.
type UnavailableError struct {
	Address string
	Err     error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("cannot reach Temporal at %s (--address or TEMPORAL_ADDRESS; or run `slipway dev`): %v", e.Address, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// RefusedError: the request was refused before anything changed, because it carries no
// verified identity (Unauthenticated: not signed in, an expired or foreign token) or the
// policy denied it (Reason says why). The CLI exits 3 on it.
type RefusedError struct {
	Message         string
	Unauthenticated bool
}

func (e *RefusedError) Error() string {
	if e.Unauthenticated {
		return "refused: not signed in: " + strings.TrimPrefix(e.Message, "refused: ")
	}
	return "refused: denied by policy: " + strings.TrimPrefix(e.Message, "refused: ")
}

// Application error types the workers refuse requests with (internal/attest, the policy check).
const (
	ErrUnauthenticated = "Unauthenticated"
	ErrPolicyDenied    = "PolicyDenied"
)

// IsRefused reports a request refused for its identity or by policy (CLI exit 3). The Temporal
// frontend's own authorizer refuses the same way: no token, one it does not trust, or a
// person's read-only token used to write.
func IsRefused(err error) bool {
	var rf *RefusedError
	var pd *serviceerror.PermissionDenied
	return errors.As(err, &rf) || errors.As(err, &pd)
}

// IsBadRequest reports errors that are the caller's input, not a failure (CLI exit 2).
func IsBadRequest(err error) bool {
	var (
		nf *NotFoundError
		rj *RejectedError
		ic *InvalidConfigError
		rn *RolloutNotFoundError
		pn *ProfileNotFoundError
	)
	return errors.As(err, &nf) || errors.As(err, &rj) || errors.As(err, &ic) || errors.As(err, &rn) || errors.As(err, &pn) || IsCredentialsError(err)
}

// translate turns Temporal errors for an instance into the typed errors above.
func translate(instance string, err error) error {
	if err == nil {
		return nil
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		switch appErr.Type() {
		case contract.ErrNotAllowed:
			return &RejectedError{Message: appErr.Message()}
		case contract.ErrBusy:
			return &RejectedError{Message: appErr.Message(), Busy: true}
		case ErrUnauthenticated:
			return &RefusedError{Message: appErr.Message(), Unauthenticated: true}
		case ErrPolicyDenied:
			return &RefusedError{Message: appErr.Message()}
		case contract.ErrInvalidConfig:
			ic := &InvalidConfigError{Message: appErr.Message()}
			if appErr.HasDetails() {
				_ = appErr.Details(&ic.Fields)
			}
			return ic
		}
	}
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return &NotFoundError{Instance: instance}
	}
	return err
}
