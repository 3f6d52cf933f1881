package contract

// Rollout activities and the signal an instance sends its rollout when an operation ends.
const (
	ActPlanRollout   = "PlanRollout"
	ActRolloutDeploy = "RolloutDeploy"
	// SignalRolloutInstance tells a rollout that one of its instances' operations ended.
	SignalRolloutInstance = "rollout-instance"
)

// RolloutSpec is what a rollout changes (Set and/or StackRev), where, and how fast.
type RolloutSpec struct {
	ID     string    `json:"id"`
	Stack  string    `json:"stack"`
	Tenant string    `json:"tenant,omitempty"`
	Set    []Setting `json:"set,omitempty"`
	// StackRev rolls out the stack as main holds it at this commit (deploys pick it up).
	StackRev string `json:"stackRev,omitempty"`
	// BatchSize or BatchPercent (of the instances to update) sizes each batch.
	BatchSize      int    `json:"batchSize,omitempty"`
	BatchPercent   int    `json:"batchPercent,omitempty"`
	MaxUnavailable int    `json:"maxUnavailable,omitempty"` // deploys in flight at once (0: the batch size)
	Order          string `json:"order,omitempty"`          // name | ordinal
	PauseAfter     bool   `json:"pauseAfterBatch,omitempty"`
	MaxFailures    int    `json:"maxFailures"` // the rollout stops when this many instances failed
	Actor          string `json:"actor,omitempty"`
}

// Setting is one --set key=value; Value is YAML, so replicas=2 is a number.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Rollout orders.
const (
	OrderName    = "name"
	OrderOrdinal = "ordinal"
)

// Action kinds in a rollout's action list.
const (
	ActionUpdate = "update"
	ActionSkip   = "skip"
)

// RolloutAction is one instance in a rollout's action list, as Datum's instance control lists
// them: what it has, what it will get, and when — or why not.
type RolloutAction struct {
	Ref     Ref    `json:"ref"`
	State   string `json:"state"`
	Ready   string `json:"ready,omitempty"`
	Action  string `json:"action"`
	Current string `json:"current"` // the changed keys as they are ("replicas=1"), or the stack revision
	Desired string `json:"desired"`
	Reason  string `json:"reason,omitempty"` // why skipped, or a note (busy now)
	Batch   int    `json:"batch"`            // 1-based; 0 when skipped
}

// RolloutPlan is the action list, in rollout order.
type RolloutPlan struct {
	Stack   string          `json:"stack"`
	Head    string          `json:"head"` // main when the list was made
	Actions []RolloutAction `json:"actions"`
}

// ListedInstance is an instance as the visibility store lists it.
type ListedInstance struct {
	Ref   Ref    `json:"ref"`
	State string `json:"state"`
	Ready string `json:"ready,omitempty"`
	Gated bool   `json:"gated,omitempty"` // scheduling gates hold its deploys
}

// RolloutDeployInput starts (or, Retry, resumes) one instance's deploy for a rollout.
type RolloutDeployInput struct {
	Rollout   string      `json:"rollout"` // the rollout's workflow ID, told when the operation ends
	Spec      RolloutSpec `json:"spec"`
	Ref       Ref         `json:"ref"`
	RequestID string      `json:"requestID"`
	Retry     bool        `json:"retry,omitempty"`
}

// Outcomes of RolloutDeploy.
const (
	DeployStarted  = "started"
	DeployAtTarget = "at-target"
	DeployBusy     = "busy"
	DeployRefused  = "refused"
)

// RolloutDeployOutput says whether the deploy started, and if not, why.
type RolloutDeployOutput struct {
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
	Ready   string `json:"ready,omitempty"` // at-target: the instance's Ready condition
}

// ReasonAtTarget is the skip reason of an instance that already has the desired config.
const ReasonAtTarget = "already at the target"

// RolloutInstanceDone is what an instance tells its rollout when an operation ends.
type RolloutInstanceDone struct {
	Ref     Ref    `json:"ref"`
	OpID    string `json:"opID"`
	Attempt int    `json:"attempt"`
	Result  string `json:"result"`
	State   string `json:"state"`
	Ready   string `json:"ready"`
	Error   string `json:"error,omitempty"`
}
