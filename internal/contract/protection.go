package contract

import "time"

// Protection says an instance is protected from deletion: destroy and deprovision are refused
// for everyone until a platform admin's unprotect.
type Protection struct {
	Source string    `json:"source"` // file (protected: true), stack (the schema's protected: true) or cli
	Actor  string    `json:"actor,omitempty"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// ProtectRequest is the argument of protect and unprotect.
type ProtectRequest struct {
	Actor  string `json:"actor,omitempty"` // a note; the verified actor is recorded
	Reason string `json:"reason,omitempty"`
}

// Protection updates.
const (
	UpdateProtect   = "protect"
	UpdateUnprotect = "unprotect"
)
