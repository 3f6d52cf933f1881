package contract

import (
	"time"

	"github.com/slipway-dev/slipway/internal/identity"
)

const (
	// SignalRolloutApproval tells a rollout that a deploy it sent waits for approval, with its plan.
	SignalRolloutApproval = "rollout-approval-wait"
	// UpdateRolloutApprove approves one plan fingerprint for every deploy of the rollout whose plan has it.
	UpdateRolloutApprove = "approve-fingerprint"
	// ActRolloutApprove approves one instance's waiting deploy on behalf of the rollout's approver.
	ActRolloutApprove = "RolloutApprove"
)

// RolloutApprovalWait is what an instance tells its rollout when a deploy the rollout sent waits
// for approval: the plan's summary without values (the hash lets the rollout approve it).
type RolloutApprovalWait struct {
	Ref  Ref         `json:"ref"`
	OpID string      `json:"opID"`
	Hash string      `json:"hash"`
	Plan PlanSummary `json:"plan"`
}

// RolloutApproveRequest is the argument of `slipway rollout approve ID --fingerprint F`.
type RolloutApproveRequest struct {
	Fingerprint string `json:"fingerprint"`
	Actor       string `json:"actor,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// RolloutGroup is one plan shape among a rollout's deploys that waited for approval.
type RolloutGroup struct {
	Fingerprint string   `json:"fingerprint"`
	Summary     string   `json:"summary"`
	Stateful    []string `json:"stateful,omitempty"`
	// Refs are the instances (TENANT/NAME) whose deploy waited with this plan shape.
	Refs []string `json:"refs"`
	// ApprovedBy approved the shape once for all of them (nil: not approved).
	ApprovedBy *identity.Actor `json:"approvedBy,omitempty"`
	Reason     string          `json:"reason,omitempty"`
	ApprovedAt time.Time       `json:"approvedAt,omitzero"`
}

// RolloutAwaiting is an instance's deploy waiting for approval within a rollout.
type RolloutAwaiting struct {
	OpID        string `json:"opID"`
	Fingerprint string `json:"fingerprint"`
	// Hash is the waiting plan's hash; the status query leaves it out (it is for approvers only).
	Hash string `json:"hash,omitempty"`
	// Approved: the rollout approved it on behalf of its group's approver.
	Approved bool `json:"approved,omitempty"`
}

// RolloutApproveInput approves one instance's waiting deploy for the approver of its plan's shape.
type RolloutApproveInput struct {
	Rollout     string         `json:"rollout"`
	Ref         Ref            `json:"ref"`
	Hash        string         `json:"hash"`
	Fingerprint string         `json:"fingerprint"`
	Approver    identity.Actor `json:"approver"`
	Reason      string         `json:"reason,omitempty"`
	RequestID   string         `json:"requestID"`
}
