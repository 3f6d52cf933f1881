package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// InstanceInput starts (or continues) an instance's entity workflow.
type InstanceInput struct {
	Ref Ref `json:"ref"`
	// State is set when the workflow continues as new.
	State    *InstanceState `json:"state,omitempty"`
	Settings Settings       `json:"settings"`
}

// OperationRequest is the argument of every operation update.
type OperationRequest struct {
	ConfigYAML string `json:"configYAML,omitempty"` // provision: required; deploy and plan: optional new config
	Actor      string `json:"actor,omitempty"`
	Reason     string `json:"reason,omitempty"`
	Confirm    bool   `json:"confirm,omitempty"` // deprovision is final and needs it
	// DeployTimeout bounds the wait for Synced+Healthy in this operation (0: the instance's setting).
	DeployTimeout time.Duration `json:"deployTimeout,omitempty"`
	// Rollout is the workflow ID of the rollout that sent the request; it is told when the operation ends.
	Rollout string `json:"rollout,omitempty"`
	// Recreate (deploy of a Deployed instance, no config) replaces the app's workload objects in
	// place after the drain hook (BOSH recreate; slipway recreate).
	Recreate bool `json:"recreate,omitempty"`
	// Adopt (provision only) is the main commit that already holds ConfigYAML, pushed there by
	// the tenant (Grove's local create): the provision records it and opens no MR.
	Adopt string `json:"adopt,omitempty"`
	// Priority is the task queue priority of the operation's pipeline (1 first to PriorityLowest);
	// 0: by who sent it (OperationPriority). A rollout's --priority and a drift sweep set it.
	Priority int `json:"priority,omitempty"`
	// To (plan only) is a release or channel of the instance's stack: the plan renders the config
	// pinned to it (slipway plan --to 1.5.0), from one render, and changes nothing.
	To string `json:"to,omitempty"`
	// OverrideWindow starts the operation now, outside its change windows (with Reason; the policy
	// decides who may: platform admins by default).
	OverrideWindow bool `json:"overrideWindow,omitempty"`
}

// DecisionRequest is the argument of retry, resolve and abandon.
type DecisionRequest struct {
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
	// To (resolve only) is the state the operator left things in: the last good state
	// (default) or the state the operation would have reached.
	To lifecycle.State `json:"to,omitempty"`
	// ForceUnlock (resolve only) is the ID of a terraform-lock leftover of the failed operation:
	// the lock is forced and the operation resumes like a retry.
	ForceUnlock string `json:"forceUnlock,omitempty"`
	// SkipHook (resolve only) goes on past the failed hook without running it, like a retry.
	SkipHook bool `json:"skipHook,omitempty"`
	// AcceptRender (resolve only, after verify-render failed) records the files on main at the
	// revision that failed as what slipway rendered, once an operator has reviewed them, and resumes.
	AcceptRender bool `json:"acceptRender,omitempty"`
}

// OperationResult is what an operation (or a retry) ended with.
type OperationResult struct {
	OperationID string              `json:"operationID"`
	Kind        lifecycle.Operation `json:"kind"`
	Result      string              `json:"result"`
	State       lifecycle.State     `json:"state"`
	Failure     *Failure            `json:"failure,omitempty"`
	Plan        *PlanSummary        `json:"plan,omitempty"`
	Diff        string              `json:"diff,omitempty"`
	Revision    string              `json:"revision,omitempty"`
}

// PipelineInput is what the entity gives a child pipeline.
type PipelineInput struct {
	Ref              Ref                 `json:"ref"`
	Operation        lifecycle.Operation `json:"operation"`
	OpID             string              `json:"opID"`
	Attempt          int                 `json:"attempt"`
	ParentID         string              `json:"parentID,omitempty"` // entity to signal step progress to
	ConfigYAML       string              `json:"configYAML,omitempty"`
	DeployedRevision string              `json:"deployedRevision,omitempty"`
	Settings         Settings            `json:"settings"`
	Resume           Progress            `json:"resume"`
	// From is the state the operation started in; hooks are told it.
	From lifecycle.State `json:"from,omitempty"`
	// Render is what slipway last merged into the instance's directory; nil before any was recorded.
	Render *Render `json:"render,omitempty"`
	// Requester is the verified actor who asked for the operation, for the policy at its approval.
	Requester *identity.Actor `json:"requester,omitempty"`
	// Stack is the instance's stack, for the policy.
	Stack string `json:"stack,omitempty"`
	// Recreate (deploy only) replaces the app's workload objects in place, after the drain hook.
	Recreate bool `json:"recreate,omitempty"`
	// Adopt is a provision's commit on main that holds the config already (OperationRequest.Adopt).
	Adopt string `json:"adopt,omitempty"`
	// To (plan only) previews the instance on another release of its stack (OperationRequest.To).
	To string `json:"to,omitempty"`
}

// PipelineResult is a successful pipeline's outcome.
type PipelineResult struct {
	Progress Progress     `json:"progress"`
	Steps    []StepRecord `json:"steps"`
	Plan     *PlanSummary `json:"plan,omitempty"`
	Diff     string       `json:"diff,omitempty"`
}

// PipelineFailure travels as the details of a PipelineFailed error.
type PipelineFailure struct {
	Failure  Failure      `json:"failure"`
	Progress Progress     `json:"progress"`
	Steps    []StepRecord `json:"steps"`
	// Decision is the rejection or expiry that ended an operation at its approval.
	Decision *ApprovalDecision `json:"decision,omitempty"`
}

// StepEvent is the signal a pipeline sends its entity as each step starts and ends.
type StepEvent struct {
	OpID    string     `json:"opID"`
	Attempt int        `json:"attempt"`
	Step    StepRecord `json:"step"`
	// Ended are the steps that ended since the last event, sent with the next step's start so
	// a step costs one signal; the last ones reach the entity in the pipeline's result.
	Ended []StepRecord `json:"ended,omitempty"`
}
