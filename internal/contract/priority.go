package contract

import (
	"fmt"

	"go.temporal.io/sdk/temporal"
)

// Task queue priorities (temporal.Priority.PriorityKey: 1 is dispatched first; the server's range
// is 1 to 5 unless matching.priorityLevels says otherwise). Activities and child workflows inherit
// their workflow's, so a pipeline's steps go at its operation's.
const (
	// PriorityPerson is a request a person made (CLI, API, webhook), and an instance's own tasks.
	PriorityPerson = 1
	// PriorityRollout is an operation a rollout sent, and the rollout workflow.
	PriorityRollout = 3
	// PriorityDrift is a drift sweep and the remediating deploys it sends.
	PriorityDrift = 5
	// PriorityLowest is the largest PriorityKey the server's default range accepts.
	PriorityLowest = 5
)

// DriftSweepIDPrefix begins the workflow ID of every drift sweep, scheduled or run now.
const DriftSweepIDPrefix = "drift-sweep/"

// CheckPriority refuses a priority outside 1..PriorityLowest (0 is unset: the default), naming field.
func CheckPriority(field string, p int) error {
	if p < 0 || p > PriorityLowest {
		return fmt.Errorf("%s: %d is out of range: 1 (first) to %d (last), or unset", field, p, PriorityLowest)
	}
	return nil
}

// TaskPriority is the priority of a workflow's tasks: key, with the tenant as the fairness key, so
// one tenant's thousand instances share the queue with another tenant's three.
func TaskPriority(key int, tenant string) temporal.Priority {
	return temporal.Priority{PriorityKey: key, FairnessKey: tenant}
}

// OperationPriority is the priority of an operation's pipeline whose request set none, by who
// sent it: a rollout's operation, or a person's request (a drift sweep's deploys set PriorityDrift).
func OperationPriority(rollout string) int {
	if rollout != "" {
		return PriorityRollout
	}
	return PriorityPerson
}
