package contract

import (
	"slices"
	"time"

	"github.com/slipway-dev/slipway/internal/approval"
)

// Approval verbs, as an operator or a forge comment says them.
const (
	VerbApprove = "approve"
	VerbReject  = "reject"
)

// ApprovalCommand is a `/slipway approve [HASH]` or `/slipway reject REASON` comment on an
// instance's MR/PR, verified and recorded by the webhook server.
type ApprovalCommand struct {
	Ref    Ref    `json:"ref"`
	Verb   string `json:"verb"`
	Plan   string `json:"plan,omitempty"`   // the plan hash (or a prefix of it) the comment names
	Reason string `json:"reason,omitempty"` // what follows the verb on a reject
	// Commenter is the forge account that wrote the comment; approvers are checked against it.
	Commenter string `json:"commenter"`
	// CommenterID is the commenter's user ID in the payload; the forge's API must agree.
	CommenterID string `json:"commenterID,omitempty"`
	// MR is the MR/PR number the comment is on, as the forge numbers it.
	MR  string `json:"mr"`
	URL string `json:"url,omitempty"`
}

// ApprovalSubmit asks an instance to take one approval comment of a delivery.
type ApprovalSubmit struct {
	Delivery string          `json:"delivery"` // provider/ID
	Index    int             `json:"index"`
	Command  ApprovalCommand `json:"command"`
	Provider string          `json:"provider"`
}

// HookState is where an instance is or is going, as a hook is told it (BOSH drain proposal).
type HookState struct {
	State     string `json:"state"`               // the lifecycle state
	App       string `json:"app"`                 // running | stopped | deleted
	Data      string `json:"data"`                // available | deleted
	Operation string `json:"operation,omitempty"` // the operation making the transition
	Reason    string `json:"reason,omitempty"`    // why, in a line
	// BOSH's drain states: the deployment's target, the instance's, and its persistent disk's
	// (Hook* constants); omitted in inputs recorded before they were told.
	Deployment string `json:"deployment,omitempty"` // updated | deleted
	Instance   string `json:"instance,omitempty"`   // running | stopped | recreated | deleted
	Disk       string `json:"disk,omitempty"`       // attached | detached | unavailable
	// Replaced are the terraform resources a deploy replaces or deletes, and the workloads it
	// recreates or deletes (Kind/name), that made it drain first.
	Replaced []string `json:"replaced,omitempty"`
}

// The values of HookState's Deployment, Instance and Disk (BOSH's next state).
const (
	HookDeploymentUpdated = "updated"
	HookDeploymentDeleted = "deleted"
	HookInstanceRunning   = "running"
	HookInstanceStopped   = "stopped"
	HookInstanceRecreated = "recreated"
	HookInstanceDeleted   = "deleted"
	HookDiskAttached      = "attached"
	HookDiskDetached      = "detached"
	// HookDiskUnavailable: a stateful resource is replaced, so its data is detached while it is.
	HookDiskUnavailable = "unavailable"
)

// HookInput runs one lifecycle hook of the instance's stack.
type HookInput struct {
	Ref      Ref       `json:"ref"`
	OpID     string    `json:"opID"`
	Attempt  int       `json:"attempt"`
	Hook     string    `json:"hook"` // drain | post-deploy
	Revision string    `json:"revision"`
	Current  HookState `json:"current"`
	Next     HookState `json:"next"`
	Deadline time.Time `json:"deadline"`
}

// HookOutput is what a hook did: its calls, its last answer and its output, redacted.
type HookOutput struct {
	Kind    string        `json:"kind"` // exec | http; "" when the stack has no such hook
	Calls   int           `json:"calls"`
	Waited  time.Duration `json:"waited"`
	Answers []string      `json:"answers,omitempty"`
	Output  string        `json:"output,omitempty"`
}

// Controls are the instance's lifecycle controls, read from its config and stack at a
// revision: the approval rule, and the stateful resources and hooks its stack declares.
type Controls struct {
	Approval approval.Rule `json:"approval,omitempty"`
	// Stateful is the stack's stateful: (policy.Stack.Stateful), for the policy at the approval step.
	Stateful []string   `json:"stateful,omitempty"`
	Hooks    []HookInfo `json:"hooks,omitempty"`
	// Budgets are the stack's terraform budgets (schema.timeouts); nil keeps the defaults.
	Budgets *Budgets `json:"budgets,omitempty"`
}

// HookInfo is a hook the stack declares: its name (drain, post-deploy), kind and deadline.
type HookInfo struct {
	Name     string        `json:"name"`
	Kind     string        `json:"kind"`
	Deadline time.Duration `json:"deadline"`
}

// Hook finds the hook the stack declares under name.
func (c *Controls) Hook(name string) (HookInfo, bool) {
	if c == nil {
		return HookInfo{}, false
	}
	i := slices.IndexFunc(c.Hooks, func(h HookInfo) bool { return h.Name == name })
	if i < 0 {
		return HookInfo{}, false
	}
	return c.Hooks[i], true
}

// Removed lists the resources the plan deletes or replaces.
func (s PlanSummary) Removed() []string {
	var out []string
	for _, rc := range s.Resources {
		if slices.Contains(rc.Actions, "delete") {
			out = append(out, rc.Address)
		}
	}
	return out
}

// ControlPlaneInput asks whether pool may run op on the instance.
type ControlPlaneInput struct {
	Ref       Ref    `json:"ref"`
	Operation string `json:"operation"`
	Pool      string `json:"pool"`
}

// Past is a verb's record: approved, rejected.
func Past(verb string) string {
	if verb == VerbReject {
		return "rejected"
	}
	return verb + "d"
}

// ShortSHA is a commit or plan hash as people read it: its first 12 digits.
func ShortSHA(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
