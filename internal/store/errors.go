package store

import (
	"fmt"

	"github.com/slipway-dev/slipway/internal/errkind"
)

// InvalidInputError names the setting or argument that is wrong.
type InvalidInputError struct {
	Field, Reason string
}

func (e *InvalidInputError) Error() string { return e.Field + ": " + e.Reason }

func (e *InvalidInputError) Is(target error) bool { return target == errkind.Invalid }

// SealError: a stored value cannot be opened with the keyring (its key ID is not in the
// keyring, or the value was altered). Nothing of the value is returned.
type SealError struct {
	What  string // e.g. `plan "3-ab12" of acme/web`
	KeyID string
	Err   error
}

func (e *SealError) Error() string {
	return fmt.Sprintf("store: %s was sealed with key id %q and cannot be opened: %v", e.What, e.KeyID, e.Err)
}

func (e *SealError) Unwrap() error { return e.Err }
