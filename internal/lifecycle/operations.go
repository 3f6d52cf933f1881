package lifecycle

import (
	"fmt"
	"strings"
)

// Operation is a pipeline an operator (or a webhook) can request.
type Operation string

const (
	OpProvision   Operation = "provision" // `slipway create`
	OpDeploy      Operation = "deploy"    // first deploy and every update
	OpPlan        Operation = "plan"
	OpArchive     Operation = "archive"
	OpDestroy     Operation = "destroy"
	OpDeprovision Operation = "deprovision"
)

// AllOperations lists the operations in lifecycle order.
var AllOperations = []Operation{OpProvision, OpDeploy, OpPlan, OpArchive, OpDestroy, OpDeprovision}

// ParseOperation accepts an operation name; "create" is the CLI's word for provision.
func ParseOperation(s string) (Operation, bool) {
	if s == "create" {
		return OpProvision, true
	}
	for _, op := range AllOperations {
		if string(op) == s {
			return op, true
		}
	}
	return "", false
}

// transition is what one operation does to the state.
type transition struct {
	from    []State
	running State // the *ing state while it runs; "" for plan, which changes no state
	done    State
	failed  State
}

var transitions = map[Operation]transition{
	OpProvision: {from: []State{NoConfiguration}, running: Provisioning, done: ConfigurationCreated, failed: ProvisioningFailed},
	OpDeploy:    {from: []State{ConfigurationCreated, Deployed, Archived, Destroyed}, running: Deploying, done: Deployed, failed: DeploymentFailed},
	OpPlan:      {from: []State{ConfigurationCreated, Deployed, Archived, Destroyed}},
	OpArchive:   {from: []State{Deployed}, running: Archiving, done: Archived, failed: ArchiveFailed},
	// destroy and deprovision also start from the instantiating failures (a cancelled or failed
	// deploy or provision): they tear down whatever the state holds, with no retry first.
	OpDestroy:     {from: []State{Deployed, DeploymentFailed, ProvisioningFailed}, running: Destroying, done: Destroyed, failed: DestroyFailed},
	OpDeprovision: {from: []State{ConfigurationCreated, Deployed, Archived, Destroyed, DeploymentFailed, ProvisioningFailed}, running: Deprovisioning, done: Deprovisioned, failed: DeprovisioningFailed},
}

// Allowed lists the operations that state s accepts, in lifecycle order.
func Allowed(s State) []Operation {
	var ops []Operation
	for _, op := range AllOperations {
		if op.allowedIn(s) {
			ops = append(ops, op)
		}
	}
	return ops
}

func (op Operation) allowedIn(s State) bool {
	for _, f := range transitions[op].from {
		if f == s {
			return true
		}
	}
	return false
}

// Running is the state while op runs; for plan it is the unchanged current state.
func (op Operation) Running(current State) State {
	if t := transitions[op]; t.running != "" {
		return t.running
	}
	return current
}

// Done is the state after op succeeds; for plan it is the unchanged current state.
func (op Operation) Done(current State) State {
	if t := transitions[op]; t.done != "" {
		return t.done
	}
	return current
}

// Failed is the state after op fails; a failed plan leaves the state as it was.
func (op Operation) Failed(current State) State {
	if t := transitions[op]; t.failed != "" {
		return t.failed
	}
	return current
}

// OperationFor returns the operation whose running or failed state is s (PreTerminate is the
// teardown's, whichever it is, so it has none).
func OperationFor(s State) (Operation, bool) {
	for _, op := range AllOperations {
		t := transitions[op]
		if t.running == s || t.failed == s {
			return op, true
		}
	}
	return "", false
}

// Check returns a *NotAllowedError when state s does not accept op.
func Check(s State, op Operation) error {
	if _, ok := transitions[op]; !ok {
		return &NotAllowedError{State: s, Operation: op, Allowed: Allowed(s)}
	}
	if op.allowedIn(s) {
		return nil
	}
	return &NotAllowedError{State: s, Operation: op, Allowed: Allowed(s)}
}

// NotAllowedError says that an operation does not fit the instance's state.
type NotAllowedError struct {
	State     State
	Operation Operation
	Allowed   []Operation
}

func (e *NotAllowedError) Error() string {
	allowed := make([]string, 0, len(e.Allowed))
	for _, op := range e.Allowed {
		allowed = append(allowed, string(op))
	}
	var hint string
	switch {
	case e.State.Failed():
		hint = "; decide first with retry, resolve or abandon"
	case e.State.Busy() && e.State.Cancellable():
		hint = "; wait for the running operation to finish, or stop it with cancel"
	case e.State.Busy():
		hint = "; wait for the running operation to finish"
	}
	list := "none"
	if len(allowed) > 0 {
		list = strings.Join(allowed, ", ")
	}
	return fmt.Sprintf("%s is not allowed in state %s (allowed: %s)%s", e.Operation, e.State, list, hint)
}
