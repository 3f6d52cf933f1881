package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/gates"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// Gate is one scheduling gate on the instance.
type Gate struct {
	gates.Spec
	Source  string    `json:"source"` // file (schedulingGates) or cli
	Actor   string    `json:"actor,omitempty"`
	AddedAt time.Time `json:"addedAt"`
	Note    string    `json:"note,omitempty"`
	Failed  string    `json:"failed,omitempty"` // an instance gate's target failed: how (instance_dependencies.go)
}

// GateRecord is one change to the gates, with who and why.
type GateRecord struct {
	Gate   string    `json:"gate"`
	Action string    `json:"action"` // added, removed, cleared, timed-out, cancelled
	Actor  string    `json:"actor,omitempty"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// GateWait is an operation held at the gates.
type GateWait struct {
	Operation lifecycle.Operation `json:"operation"`
	Actor     string              `json:"actor,omitempty"`
	Since     time.Time           `json:"since"`
	// Window, when set, is the opening of the change window the operation waits for (not the gates).
	Window *time.Time `json:"window,omitempty"`
}

// GateRequest is the argument of gate-add, gate-remove and cancel.
type GateRequest struct {
	Name    string        `json:"name,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
	Actor   string        `json:"actor,omitempty"`
	Reason  string        `json:"reason,omitempty"`
}

// ReadyWatch asks for a gate-cleared signal once this instance is Ready.
type ReadyWatch struct {
	Workflow string `json:"workflow"`
	Gate     string `json:"gate"`
	// Dependency: the watcher's stack depends on this instance (schema.dependencies), so the
	// watch is its registration: the instance clears it only while it is not torn down, and holds
	// the watcher among its dependents from then on.
	Dependency bool `json:"dependency,omitempty"`
}

// Gate updates and signals.
const (
	UpdateGateAdd    = "gate-add"
	UpdateGateRemove = "gate-remove"
	UpdateCancel     = "cancel"
	// SignalGateCleared tells a gated instance that a built-in gate's condition holds.
	SignalGateCleared = "gate-cleared"
)
