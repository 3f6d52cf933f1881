package notify

import (
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Kind is what happened.
type Kind string

const (
	KindFailed           Kind = "Failed"           // an instance entered <Step>Failed
	KindReady            Kind = "Ready"            // an instance became Ready
	KindDrifted          Kind = "Drifted"          // an instance's infrastructure drifted from its config
	KindRolloutBatch     Kind = "RolloutBatch"     // a rollout batch ended
	KindAwaitingApproval Kind = "AwaitingApproval" // an operation waits for an approval
	KindDependencyStale  Kind = "DependencyStale"  // an instance's changed outputs could not be passed on to its dependents
	KindRetrying         Kind = "Retrying"         // a step failed attempt after attempt and is being retried
	KindExpiring         Kind = "Expiring"         // an instance's expiry is near (one of its stack's warn points)
	KindUpgradePlanned   Kind = "UpgradePlanned"   // an upgrade deadline planned a tenant's instances into a wave at a window opening
)

// kinds is every Kind, in the order errors list them.
var kinds = []Kind{KindFailed, KindReady, KindDrifted, KindRolloutBatch, KindAwaitingApproval, KindDependencyStale, KindRetrying, KindExpiring, KindUpgradePlanned}

// Kinds returns every Kind.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, v := range kinds {
		if k == v {
			return true
		}
	}
	return false
}

// Event is one notification, the JSON body of a webhook delivery.
type Event struct {
	// ID is the delivery ID: deterministic per transition (the same on every retry), so
	// receivers dedupe on it. It is also the forge comment key.
	ID        string              `json:"id"`
	Kind      Kind                `json:"kind"`
	Tenant    string              `json:"tenant,omitempty"`
	Instance  string              `json:"instance,omitempty"` // "tenant/name"
	Rollout   string              `json:"rollout,omitempty"`
	State     string              `json:"state,omitempty"`
	Operation string              `json:"operation,omitempty"`
	Step      string              `json:"step,omitempty"`
	Message   string              `json:"message"`            // one human line
	Revision  string              `json:"revision,omitempty"` // the merged commit the event is about
	MR        *forge.MergeRequest `json:"mr,omitempty"`
	Plan      string              `json:"plan,omitempty"` // plan summary line
	Details   map[string]string   `json:"details,omitempty"`
	At        time.Time           `json:"at"`
}

// tenant is ev.Tenant, or the tenant part of ev.Instance when Tenant is empty.
func (ev Event) tenant() string {
	if ev.Tenant != "" {
		return ev.Tenant
	}
	if t, _, ok := strings.Cut(ev.Instance, "/"); ok {
		return t
	}
	return ""
}

// subject is what the event is about: "acme/web", "rollout r-42", or "".
func (ev Event) subject() string {
	switch {
	case ev.Instance != "":
		return ev.Instance
	case ev.Rollout != "":
		return "rollout " + ev.Rollout
	}
	return ""
}

// oneLine folds s onto one line: senders and forges show a single line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
