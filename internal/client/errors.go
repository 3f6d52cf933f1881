package client

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/errkind"
)

// clientError is an error of this package: its kind is the client's verdict on a request.
type clientError interface {
	error
	kind() errkind.Kind
}

// NotFoundError: the instance was never created (or its workflow is gone).
type NotFoundError struct{ Instance string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("instance %s does not exist: create it first with `slipway create %s -f FILE`", e.Instance, e.Instance)
}

func (e *NotFoundError) kind() errkind.Kind   { return errkind.NotFound }
func (e *NotFoundError) Is(target error) bool { return target == e.kind() }

// RejectedError: the instance's state (or the request) does not allow it. Nothing changed.
// Busy says the instance runs another operation: the same request may succeed later.
type RejectedError struct {
	Message string
	Busy    bool
}

func (e *RejectedError) Error() string { return "rejected: " + e.Message }

func (e *RejectedError) kind() errkind.Kind {
	if e.Busy {
		return errkind.Busy
	}
	return errkind.NotAllowed
}

func (e *RejectedError) Is(target error) bool { return target == e.kind() }

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

func (e *InvalidConfigError) kind() errkind.Kind   { return errkind.Invalid }
func (e *InvalidConfigError) Is(target error) bool { return target == e.kind() }

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

func (e *RefusedError) kind() errkind.Kind   { return errkind.Auth }
func (e *RefusedError) Is(target error) bool { return target == e.kind() }

// Application error types the workers refuse requests with (internal/attest, the policy check).
const (
	ErrUnauthenticated = "Unauthenticated"
	ErrPolicyDenied    = "PolicyDenied"
)

// KindOf is the kind of an error this client returned: a refusal (Auth; the Temporal frontend's
// own authorizer refuses with PermissionDenied: no token, one it does not trust, or a person's
// read-only token used to write), bad input (Invalid, NotFound) or a state that does not accept
// the request (NotAllowed, Busy). A backend's kind that reached the caller by another way is not
// the client's verdict on a request: KindOf says "" for it.
func KindOf(err error) errkind.Kind {
	var own clientError
	var pd *serviceerror.PermissionDenied
	switch {
	case errors.As(err, &own):
		return own.kind()
	case errors.As(err, &pd):
		return errkind.Auth
	}
	return ""
}

// IsRefused reports a request refused for its identity or by policy (CLI exit 3).
func IsRefused(err error) bool { return KindOf(err) == errkind.Auth }

// IsBadRequest reports errors that are the caller's input, not a failure (CLI exit 2).
func IsBadRequest(err error) bool {
	switch KindOf(err) {
	case errkind.Invalid, errkind.NotFound, errkind.NotAllowed, errkind.Busy:
		return true
	}
	return false
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
