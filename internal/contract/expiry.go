package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/identity"
)

// ExpiryPlan is the expiry a valid config sets (ValidateOutput.Expiry).
type ExpiryPlan struct {
	At     time.Time       `json:"at"`
	Action string          `json:"action"`         // archive or destroy
	Warn   []time.Duration `json:"warn,omitempty"` // before the end, longest first
	Max    time.Duration   `json:"max,omitempty"`  // the stack's maximum from when it is set or extended
}

// Expiry is an instance's expiry: at At the instance workflow runs Action, as SetBy.
type Expiry struct {
	ExpiryPlan
	SetBy  *identity.Actor `json:"setBy,omitempty"` // who set it (or extended it last): the action is theirs
	Actor  string          `json:"actor,omitempty"`
	SetAt  time.Time       `json:"setAt"`
	Warned int             `json:"warned,omitempty"` // how many of Warn were sent (or had passed when set)
}

// ExtendRequest is the argument of extend.
type ExtendRequest struct {
	By     time.Duration `json:"by"`
	Actor  string        `json:"actor,omitempty"`
	Reason string        `json:"reason,omitempty"`
}

// UpdateExtend moves an instance's expiry on.
const UpdateExtend = "extend"
