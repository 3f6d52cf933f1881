package contract

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/errkind"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// Application error types that cross the workflow/activity boundary. Types in
// NonRetryable fail the step at once: retrying cannot fix them.
const (
	ErrInvalidConfig   = "InvalidConfig"   // bad instance config or stack; details: []FieldError
	ErrNotAllowed      = "NotAllowed"      // the state does not accept the request
	ErrMergeConflict   = "MergeConflict"   // the MR cannot merge; an operator must look
	ErrNotFound        = "NotFound"        // repo, branch, instance config or binary missing
	ErrStateLocked     = "StateLocked"     // terraform state is locked by someone else
	ErrTerraform       = "TerraformError"  // terraform failed on the config: re-running will not help
	ErrDeployFailed    = "DeployFailed"    // the app failed to sync or became degraded
	ErrDeployTimeout   = "DeployTimeout"   // not Synced+Healthy before the deadline
	ErrPipelineFailed  = "PipelineFailed"  // a child pipeline failed; details: PipelineFailure
	ErrRefused         = "Refused"         // an external system refused the request as malformed
	ErrRateLimited     = "RateLimited"     // retried after the delay the forge asked for
	ErrLockContention  = "LockContention"  // pg's creation lock, or a git ref lock, held by another live writer; retried
	ErrUnreadable      = "StoreUnreadable" // a stored plan or secret does not open with the keyring (names the key ID)
	ErrStalePlan       = "StalePlan"       // the state changed after the plan was made (an apply cut short by a lost host)
	ErrBusy            = "Busy"            // the instance runs another operation: the request may succeed later
	ErrWorkerStopped   = "WorkerStopped"   // the worker's stop grace ran out mid-step: retried on another worker
	ErrTerraformKilled = "TerraformKilled" // terraform killed by a signal slipway did not send: retried
)

// NonRetryable are the error types that activity retry policies stop on.
var NonRetryable = []string{
	ErrInvalidConfig, ErrNotAllowed, ErrMergeConflict, ErrNotFound, ErrStateLocked,
	ErrTerraform, ErrDeployFailed, ErrDeployTimeout, ErrRefused, ErrStalePlan, ErrBusy,
}

// FieldError names one bad field of an instance config: the one field error type of every
// validation, as JSON "field" and "message".
type FieldError = yamlfields.FieldError

// RefError is a bad TENANT/NAME; Part is "tenant", "name" or "" when the shape is wrong.
type RefError struct {
	Part    string
	Value   string
	Message string
}

func (e *RefError) Error() string {
	if e.Part == "" {
		return fmt.Sprintf("TENANT/NAME: %q: %s", e.Value, e.Message)
	}
	return fmt.Sprintf("TENANT/NAME: %s %q: %s", e.Part, e.Value, e.Message)
}

func (e *RefError) Is(target error) bool { return target == errkind.Invalid }

// ErrorText is what a step's error says, as its record shows it: the innermost application error's
// message without its type, a timeout by its kind (a step that stopped heartbeating, or hung).
func ErrorText(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return appErr.Message()
	}
	var toErr *temporal.TimeoutError
	if errors.As(err, &toErr) {
		return "timed out (" + toErr.TimeoutType().String() + ")"
	}
	return err.Error()
}
