package contract

import (
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/identity"
)

const (
	AuditDenied  = "denied"
	AuditAllowed = "allowed"
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
	// RequestID is the update's ID, when an update asked.
	RequestID string `json:"requestID,omitempty"`
}

// AuditEntry is one recorded decision about a request to an instance (or one of its pipelines),
// or to slipway server: `slipway audit` prints one per line, and the durable audit log keeps it.
type AuditEntry struct {
	At         time.Time `json:"at"`
	Tenant     string    `json:"tenant"`
	Instance   string    `json:"instance"`
	Actor      string    `json:"actor"`
	ActorKind  string    `json:"actorKind,omitempty"`
	Issuer     string    `json:"issuer,omitempty"`
	Operation  string    `json:"operation"`
	Decision   string    `json:"decision"`
	Reason     string    `json:"reason,omitempty"`
	PolicyHash string    `json:"policyHash,omitempty"`
	RequestID  string    `json:"requestID,omitempty"`
	// Request is what was asked as history names it: "update deploy", "signal approval-decision".
	Request string `json:"request"`
	// Workflow is where the request went when not the instance itself (a pipeline).
	Workflow string `json:"workflow,omitempty"`
	// Source says where the entry was read: "log" (the durable audit log) or "history".
	Source string `json:"source,omitempty"`
}

// NewAuditEntry turns an instance's audit record into an entry.
func NewAuditEntry(ref Ref, rec AuditRecord) AuditEntry {
	e := AuditEntry{At: rec.At, Tenant: ref.Tenant, Instance: ref.String(), Decision: rec.Decision, Reason: rec.Reason,
		PolicyHash: rec.PolicyHash, Request: rec.Request, Workflow: rec.Workflow, RequestID: rec.RequestID, Actor: "-"}
	// "update deploy", "signal approval-decision"; a pipeline's own records: "destroy <operation ID>".
	switch f := strings.Fields(rec.Request); {
	case len(f) > 1 && (f[0] == "update" || f[0] == "signal"):
		e.Operation = f[1]
	case len(f) > 0:
		e.Operation = f[0]
	}
	if a := rec.Actor; a != nil {
		e.Actor, e.ActorKind, e.Issuer = a.Name, string(a.Kind), a.Issuer
		if e.Actor == "" {
			e.Actor = a.Subject
		}
	}
	return e
}
