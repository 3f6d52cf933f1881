package forge

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/errkind"
)

// Errors shared by every forge backend; each says its errkind. Callers (activities) use
// IsNonRetryable to decide whether a retry can help.

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

func (e *ConflictError) Is(target error) bool { return target == errkind.Conflict }

// NotFoundError means something the call needs does not exist, e.g. "branch slipway/a/b/deploy-1".
type NotFoundError struct {
	What string
}

func (e *NotFoundError) Error() string { return e.What + " not found" }

func (e *NotFoundError) Is(target error) bool { return target == errkind.NotFound }

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

func (e *InvalidError) Is(target error) bool { return target == errkind.Invalid }

// ErrBaseMoved means the base branch kept moving while a merge tried to land
// (compare-and-swap lost every time). It is retryable: the next attempt merges onto the new base.
var ErrBaseMoved = errors.New("base branch moved during merge")

// LockedError means another writer holds a lock the call needs (a git ref lock taken by a push
// outside slipway, or slipway's own writer lock held by a live process). It is not a moved
// base: the same call may succeed once the holder lets go, so it is retryable (errkind.Busy).
type LockedError struct {
	What string // e.g. "refs/heads/main.lock in /srv/gitops.git (2s old)"
	Err  error
}

func (e *LockedError) Error() string {
	if e.Err == nil {
		return e.What + " is locked by another writer"
	}
	return fmt.Sprintf("%s is locked by another writer: %v", e.What, e.Err)
}

func (e *LockedError) Unwrap() error { return e.Err }

func (e *LockedError) Is(target error) bool { return target == errkind.Busy }

// HeadChangedError means the MR's branch moved away from the head SHA the caller meant to
// merge (someone pushed to it). Merging blindly could land unreviewed content: non-retryable.
type HeadChangedError struct {
	Branch string
	Want   string // the head SHA the caller expected
	Got    string // the head SHA the forge has now; may be empty when the forge does not say
}

func (e *HeadChangedError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("branch %s moved: its head is no longer %s", e.Branch, e.Want)
	}
	return fmt.Sprintf("branch %s moved: head is %s, expected %s", e.Branch, e.Got, e.Want)
}

// MergedError means Close found the MR already merged: its change is on the base, and closing
// cannot take it back. A retry gives the same answer, so it is non-retryable.
type MergedError struct {
	MR MergeRequest // as the forge has it now, State StateMerged and MergeSHA set when the forge says
}

func (e *MergedError) Error() string {
	msg := fmt.Sprintf("merge request %s of branch %s is already merged", e.MR.ID, e.MR.Branch)
	if e.MR.MergeSHA != "" {
		msg += " (as " + e.MR.MergeSHA + ")"
	}
	return msg + "; it cannot be closed"
}

// CheckClosed is what Close makes of the forge's answer after closing: closed is done, merged
// is a *MergedError, and still open a retryable error, so the next attempt closes it again.
func CheckClosed(mr MergeRequest, what string) error {
	switch mr.State {
	case StateMerged:
		return &MergedError{MR: mr}
	case StateOpen:
		return fmt.Errorf("%s: still open after closing it", what)
	}
	return nil
}

// RateLimitError means the forge refused the call for now; RetryAfter is how long it asked
// us to wait. It is retryable: the activity retry backs off at least that long.
type RateLimitError struct {
	RetryAfter time.Duration
	Message    string // the forge's own words, if any
}

func (e *RateLimitError) Error() string {
	msg := fmt.Sprintf("rate limited: retry after %s", e.RetryAfter)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

func (e *RateLimitError) Is(target error) bool { return target == errkind.RateLimited }

// Delay is the wait the forge asked for (errkind.Delay).
func (e *RateLimitError) Delay() time.Duration { return e.RetryAfter }

// IsNonRetryable reports whether err (or anything it wraps) is an error a retry cannot fix:
// a conflict, a missing object, bad input, a refused credential (each backend's AuthError is
// errkind.Auth), a moved head or an MR already merged.
func IsNonRetryable(err error) bool {
	var headChanged *HeadChangedError
	var merged *MergedError
	return errors.Is(err, errkind.Conflict) || errors.Is(err, errkind.NotFound) || errors.Is(err, errkind.Invalid) ||
		errors.Is(err, errkind.Auth) || errors.As(err, &headChanged) || errors.As(err, &merged)
}
