package contract

import "github.com/slipway-dev/slipway/internal/identity"

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

// NotifyDependentsOutput says what each dependent was sent.
type NotifyDependentsOutput struct {
	// Sent are "TENANT/NAME: plan|deploy" for each dependent a consumed output changed for.
	Sent []string `json:"sent,omitempty"`
	// Unchanged counts dependents whose consumed outputs are as they were.
	Unchanged int `json:"unchanged,omitempty"`
	// Refused are dependents that refused the request (and why): a failed or busy one keeps its value until its next deploy.
	Refused []string `json:"refused,omitempty"`
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
