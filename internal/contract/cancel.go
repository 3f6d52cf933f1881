package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// ErrCancelled is the failure type of an operation that `slipway cancel` (or a teardown asked
// for meanwhile, PreTerminate) stopped at a safe point.
const ErrCancelled = "Cancelled"

// LeftoverCancelled names where a cancelled operation stopped and what it had done by then.
const LeftoverCancelled = "cancelled"

// CancelRecord is who stopped a running operation, and why.
type CancelRecord struct {
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
	// For is the teardown that asked for the stop (PreTerminate); "" for slipway cancel.
	For lifecycle.Operation `json:"for,omitempty"`
	At  time.Time           `json:"at"`
}

func (c *CancelRecord) String() string {
	s := "cancelled"
	if c.For != "" {
		s = "stopped for " + string(c.For)
	}
	if c.Actor != "" {
		s += " by " + c.Actor
	}
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	return s
}
