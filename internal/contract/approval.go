package contract

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/forge"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
	"github.com/slipway-dev/slipway/internal/policy"
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
	// Clusters are the clusters the app leaves, its placement no longer picking them: a deploy
	// drains before it removes the app there (BOSH drains when removing AZs).
	Clusters []string `json:"clusters,omitempty"`
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
	// Capacity names the capacity budgets its terraform steps draw on (schema.capacity); nil draws on none.
	Capacity *Capacity `json:"capacity,omitempty"`
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

// ApprovalRequest is the argument of approve and reject.
type ApprovalRequest struct {
	Plan   string `json:"plan,omitempty"` // the plan hash, or at least 7 of its first digits
	Actor  string `json:"actor"`
	Reason string `json:"reason,omitempty"`
	// Source says where it came from: cli, or the forge comment's URL.
	Source string `json:"source,omitempty"`
	// MR is the MR/PR number a forge comment is on; empty for the CLI.
	MR string `json:"mr,omitempty"`
}

// ApprovalRecord is one event of an approval: awaited, approved, rejected, expired or voided.
type ApprovalRecord struct {
	OpID  string `json:"opID"`
	Hash  string `json:"hash"`
	Event string `json:"event"`
	Actor string `json:"actor,omitempty"`
	// By is the verified actor behind Actor, where there was one.
	By     *identity.Actor `json:"by,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Source string          `json:"source,omitempty"`
	At     time.Time       `json:"at"`
}

// ApprovalResult answers approve and reject.
type ApprovalResult struct {
	Instance  string              `json:"instance"`
	Operation lifecycle.Operation `json:"operation"`
	OpID      string              `json:"opID"`
	Hash      string              `json:"hash"`
	Verb      string              `json:"verb"`
}

// ApprovalWait is an operation stopped until its plan is approved.
type ApprovalWait struct {
	OpID     string       `json:"opID"`
	Attempt  int          `json:"attempt"`
	Pipeline string       `json:"pipeline"`
	Hash     string       `json:"hash"`
	What     string       `json:"what"` // the plan summary a reviewer reads
	Plan     *PlanSummary `json:"plan,omitempty"`
	Why      string       `json:"why"`
	// Approvers may approve; empty means anyone who can reach the instance.
	Approvers []string            `json:"approvers,omitempty"`
	Since     time.Time           `json:"since"`
	Deadline  time.Time           `json:"deadline"`
	MR        *forge.MergeRequest `json:"mr,omitempty"`
	// Voids is the approved plan this one replaced: a plan made again after approval needs its own.
	Voids string `json:"voids,omitempty"`
	// Required is the policy's requirement (groups, count, self-approval); nil in waits from
	// before approvals were the policy's, which Approvers alone decide.
	Required *policy.Requirement `json:"required,omitempty"`
	// Requester asked for the operation; Approvals are the distinct approvers so far.
	Requester  *identity.Actor  `json:"requester,omitempty"`
	Approvals  []identity.Actor `json:"approvals,omitempty"`
	PolicyHash string           `json:"policyHash,omitempty"`
	// Redacted: this copy was read by someone who may not approve, so it has no plan, hash or summary.
	Redacted bool `json:"redacted,omitempty"`
}

// Awaited names who may approve, for anyone to read: the approvers, or "the instance's operators".
func (w ApprovalWait) Awaited() string {
	if r := w.Required; r != nil {
		s := strings.Join(r.Groups, " or ")
		if r.Count > 1 {
			s = fmt.Sprintf("%d of %s", r.Count, s)
		}
		return s
	}
	if len(w.Approvers) == 0 {
		return "the instance's operators"
	}
	return strings.Join(w.Approvers, ", ")
}

// ApprovalDecision is an accepted approve or reject, or the deadline passing.
type ApprovalDecision struct {
	Verb   string    `json:"verb"`
	Hash   string    `json:"hash"`
	Actor  string    `json:"actor,omitempty"`
	Reason string    `json:"reason,omitempty"`
	Source string    `json:"source,omitempty"`
	At     time.Time `json:"at"`
}

// Updates of an approval wait.
const (
	UpdateApprove = "approve"
	UpdateReject  = "reject"
)

// Conditions and reasons the controls set.
const (
	// CondAwaitingApproval is True while an operation waits for its plan to be approved.
	CondAwaitingApproval = "AwaitingApproval"
	// CondScheduled is False while scheduling gates hold the instance's provisions and deploys.
	CondScheduled = "Scheduled"
	// ReasonDependencyFailed is the Scheduled condition's reason while a gate's target is failed.
	ReasonDependencyFailed = "DependencyFailed"
)
