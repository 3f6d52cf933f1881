// Package lifecycle is the instance state machine of docs/design.md as pure data:
// states, operations and the transitions between them. Workflows, the CLI and
// webhooks all read it, so it imports nothing of theirs.
package lifecycle

// State is where an instance is in its life. The names are those of docs/design.md.
type State string

const (
	NoConfiguration      State = "NoConfiguration"
	Provisioning         State = "Provisioning"
	ProvisioningFailed   State = "ProvisioningFailed"
	ConfigurationCreated State = "ConfigurationCreated"
	Deploying            State = "Deploying"
	DeploymentFailed     State = "DeploymentFailed"
	Deployed             State = "Deployed"
	Archiving            State = "Archiving"
	ArchiveFailed        State = "ArchiveFailed"
	Archived             State = "Archived"
	Destroying           State = "Destroying"
	DestroyFailed        State = "DestroyFailed"
	Destroyed            State = "Destroyed"
	Deprovisioning       State = "Deprovisioning"
	DeprovisioningFailed State = "DeprovisioningFailed"
	Deprovisioned        State = "Deprovisioned"
	// PreTerminate is EMCO's: a teardown was asked for while a provision or deploy ran; the
	// running operation is being cancelled, and the teardown runs once it has stopped.
	PreTerminate State = "PreTerminate"
)

// AllStates lists every state, in lifecycle order.
var AllStates = []State{
	NoConfiguration, Provisioning, ProvisioningFailed, ConfigurationCreated,
	Deploying, DeploymentFailed, Deployed, Archiving, ArchiveFailed, Archived,
	Destroying, DestroyFailed, Destroyed, Deprovisioning, DeprovisioningFailed, Deprovisioned,
	PreTerminate,
}

// ParseState returns the state with that exact name.
func ParseState(s string) (State, bool) {
	for _, st := range AllStates {
		if string(st) == s {
			return st, true
		}
	}
	return "", false
}

// Failed reports whether s is a <Step>Failed state waiting for an operator decision.
func (s State) Failed() bool {
	switch s {
	case ProvisioningFailed, DeploymentFailed, ArchiveFailed, DestroyFailed, DeprovisioningFailed:
		return true
	}
	return false
}

// Busy reports whether an operation is running in s.
func (s State) Busy() bool {
	switch s {
	case Provisioning, Deploying, Archiving, Destroying, Deprovisioning, PreTerminate:
		return true
	}
	return false
}

// Final reports whether nothing can happen after s.
func (s State) Final() bool { return s == Deprovisioned }

// Cancellable reports whether an operation running in s may be stopped by cancel or by a
// teardown (PreTerminate): the instantiating ones, provision and deploy.
func (s State) Cancellable() bool { return s == Provisioning || s == Deploying }

// Terminates reports whether op tears the instance down, so that it may interrupt a provision
// or deploy (PreTerminate) and start from their failed states.
func (op Operation) Terminates() bool {
	return op == OpArchive || op == OpDestroy || op == OpDeprovision
}
