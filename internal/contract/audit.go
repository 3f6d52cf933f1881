package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/identity"
)

const (
	AuditDenied = "denied"
)

// AuditRecord is one decision about a request to the instance or one of its pipelines.
type AuditRecord struct {
	At       time.Time       `json:"at"`
	Decision string          `json:"decision"`
	Request  string          `json:"request"`            // "signal approval-decision", "update approve"
	Workflow string          `json:"workflow,omitempty"` // where the request went, when not the instance
	Actor    *identity.Actor `json:"actor,omitempty"`
	// PolicyHash is the version of the policy that decided, when one did.
	PolicyHash string `json:"policyHash,omitempty"`
	Reason     string `json:"reason,omitempty"`
}
