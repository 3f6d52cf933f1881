package forge

import (
	"errors"
	"fmt"
	"strings"
)

// Errors shared by every forge backend. Callers (activities) use IsNonRetryable to
// decide whether a retry can help.

// ConflictError means the MR's branch cannot be merged into the base without conflicts.
// A retry gives the same result, so it is non-retryable.
type ConflictError struct {
	Branch string
	Paths  []string // repo-relative paths in conflict; may be empty when the forge does not say
}

func (e *ConflictError) Error() string {
	if len(e.Paths) == 0 {
		return fmt.Sprintf("merge conflict: branch %s cannot be merged into the base", e.Branch)
	}
	return fmt.Sprintf("merge conflict: branch %s conflicts with the base in %s", e.Branch, strings.Join(e.Paths, ", "))
}

// NotFoundError means something the call needs does not exist, e.g. "branch slipway/a/b/deploy-1".
type NotFoundError struct {
	What string
}

func (e *NotFoundError) Error() string { return e.What + " not found" }

// InvalidError is bad input to a forge call; Field names it ("branch", "dir", "files[a.yaml]", ...).
type InvalidError struct {
	Field   string
	Value   string
	Problem string
}

func (e *InvalidError) Error() string {
	if e.Value == "" {
		return fmt.Sprintf("invalid %s: %s", e.Field, e.Problem)
	}
	return fmt.Sprintf("invalid %s %q: %s", e.Field, e.Value, e.Problem)
}

// ErrBaseMoved means the base branch kept moving while a merge tried to land
// (compare-and-swap lost every time). It is retryable: the next attempt merges onto the new base.
var ErrBaseMoved = errors.New("base branch moved during merge")

// IsNonRetryable reports whether err (or anything it wraps) is an error a retry cannot fix.
func IsNonRetryable(err error) bool {
	var conflict *ConflictError
	var notFound *NotFoundError
	var invalid *InvalidError
	return errors.As(err, &conflict) || errors.As(err, &notFound) || errors.As(err, &invalid)
}
