// Package errkind holds the kinds of error slipway tells apart: every backend error says its
// kind, so the activities (Temporal's retryable or not) and the CLI (exit codes) decide on the
// kind, not on each backend's types.
//
// A kind is an error value: a backend type says its kind with an Is method, or wraps it with %w,
// and callers ask errors.Is(err, errkind.NotFound) or errkind.Of(err).
package errkind

import (
	"errors"
	"fmt"
	"time"
)

// Kind is one kind of error. Its string is how it reads in a message.
type Kind string

func (k Kind) Error() string { return string(k) }

// The kinds. An error of none of them is a failure of the call itself (retryable unless its
// type says otherwise).
const (
	NotFound    Kind = "not found"    // the object the call needs does not exist
	Conflict    Kind = "conflict"     // the change collides with another one (a merge conflict)
	Auth        Kind = "auth"         // the credential is refused, or lacks the rights (401/403)
	RateLimited Kind = "rate limited" // refused for now; Delay says how long to wait
	Invalid     Kind = "invalid"      // the input is wrong; the error names the field
	Busy        Kind = "busy"         // something else holds the object; the same call may succeed later
	NotAllowed  Kind = "not allowed"  // the object's state does not accept the call
)

// kinds are the ones Of asks an error's Is method about.
var kinds = []Kind{Invalid, Auth, RateLimited, NotFound, Conflict, Busy, NotAllowed}

// Of returns the kind of the outermost error in err's chain that has one, or "".
func Of(err error) Kind {
	for _, e := range chain(err) {
		if k, ok := e.(Kind); ok {
			return k
		}
		if m, ok := e.(interface{ Is(error) bool }); ok {
			for _, k := range kinds {
				if m.Is(k) {
					return k
				}
			}
		}
	}
	return ""
}

// chain lists err and what it wraps, outermost first, depth first through joined errors.
func chain(err error) []error {
	var out []error
	for err != nil {
		out = append(out, err)
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				out = append(out, chain(e)...)
			}
			return out
		default:
			return out
		}
	}
	return out
}

// Delayer is a RateLimited error that knows how long to wait.
type Delayer interface{ Delay() time.Duration }

// Delay returns the wait a rate-limited error asked for, if one in err's chain says it.
func Delay(err error) (time.Duration, bool) {
	var d Delayer
	if errors.As(err, &d) {
		return d.Delay(), true
	}
	return 0, false
}

// Errorf is an error of kind k whose message is the formatted text alone: for an error that
// needs no type of its own beyond its kind.
func Errorf(k Kind, format string, args ...any) error {
	return &kindError{kind: k, err: fmt.Errorf(format, args...)}
}

type kindError struct {
	kind Kind
	err  error
}

func (e *kindError) Error() string        { return e.err.Error() }
func (e *kindError) Is(target error) bool { return target == e.kind }
func (e *kindError) Unwrap() error        { return errors.Unwrap(e.err) }
