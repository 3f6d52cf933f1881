package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/identity"
)

// ActNotifyDependents starts a plan or deploy (as each dependent's stack says) on the instances
// that consume a changed output of the instance that just deployed.
const ActNotifyDependents = "NotifyDependents"

// NotifyDependentsInput names the instance whose outputs changed, and them.
type NotifyDependentsInput struct {
	Ref     Ref               `json:"ref"`
	Outputs map[string]string `json:"outputs"`
	// OnBehalfOf is who asked for the deploy that changed the outputs: the dependents' plans and
	// deploys are sent for them.
	OnBehalfOf *identity.Actor `json:"onBehalfOf,omitempty"`
}

// Signals between an instance and its dependents.
const (
	// SignalDependentGone tells an instance that a dependent no longer depends on it (deprovisioned, or pointed elsewhere).
	SignalDependentGone = "dependent-gone"
	// SignalDependencyStale tells a dependent that a dependency's outputs changed and it could not be sent them (DependencyStale).
	SignalDependencyStale = "dependency-stale"
	// CondDependencyStale is True while a dependency's changed outputs could not be passed on to the instance; its next
	// successful provision or deploy (which reads them) makes it go.
	CondDependencyStale = "DependencyStale"
	// ErrDependentsBusy is NotifyDependents' error while dependents stay busy; its details are their TENANT/NAMEs.
	ErrDependentsBusy = "DependentsBusy"
)

// DependentGone is what SignalDependentGone carries: the dependent's TENANT/NAME.
type DependentGone struct {
	Dependent string `json:"dependent"`
}

// DependencyStale is what SignalDependencyStale carries, and the dependent keeps.
type DependencyStale struct {
	Dependency string    `json:"dependency"` // TENANT/NAME whose outputs changed
	Error      string    `json:"error"`      // why they were not passed on
	At         time.Time `json:"at"`
}

// NotifyDependentsOutput says what each dependent was sent.
type NotifyDependentsOutput struct {
	// Sent are "TENANT/NAME: plan|deploy" for each dependent a consumed output changed for.
	Sent []string `json:"sent,omitempty"`
	// Unchanged counts dependents whose consumed outputs are as they were.
	Unchanged int `json:"unchanged,omitempty"`
	// Refused are dependents that refused the request (and why): a failed or busy one keeps its value until its next deploy.
	Refused []string `json:"refused,omitempty"`
	// Stale are the TENANT/NAMEs of the refused dependents: they keep the old values (DependencyStale).
	Stale []string `json:"stale,omitempty"`
}

// DependencyInstance is what a dependent reads of an instance it depends on.
type DependencyInstance struct {
	Ref          Ref               `json:"ref"`
	Stack        string            `json:"stack,omitempty"`
	State        string            `json:"state"`
	Ready        string            `json:"ready,omitempty"`
	Failed       bool              `json:"failed,omitempty"`
	Outputs      map[string]string `json:"outputs,omitempty"`
	Dependencies []string          `json:"dependencies,omitempty"`
}
