package contract

import (
	"fmt"

	"github.com/slipway-dev/slipway/internal/lifecycle"
)

// DefaultTaskQueue is where workers poll unless SLIPWAY_TASK_QUEUE says otherwise.
const DefaultTaskQueue = "slipway"

// Workflow type names, stable across refactors because histories name them.
const (
	InstanceWorkflowName    = "InstanceWorkflow"
	ValidateWorkflowName    = "ValidateConfigWorkflow"
	RolloutWorkflowName     = "RolloutWorkflow"
	RolloutPlanWorkflowName = "RolloutPlanWorkflow"
	DriftSweepWorkflowName  = "DriftSweepWorkflow"
	// StackPreviewWorkflowName plans a stack release's move across the fleet (slipway stack preview).
	StackPreviewWorkflowName = "StackPreviewWorkflow"
	ControlPlaneWorkflowName = "ControlPlaneWorkflow"
	// DeliveryBatchWorkflowName is the workflow type of a batch of deliveries recorded together.
	DeliveryBatchWorkflowName = "WebhookDeliveryBatchWorkflow"
	// ResourceStatesWorkflowName reads an instance's resources as the deployer holds them, for
	// status --detail detail and rsync. It changes nothing and keeps no state: the client starts
	// it on the instance's worker pool, which holds the deployer's credentials.
	ResourceStatesWorkflowName = "ResourceStatesWorkflow"
)

// PipelineName is the workflow type of an operation's pipeline.
func PipelineName(op lifecycle.Operation) string {
	switch op {
	case lifecycle.OpProvision:
		return "ProvisionPipeline"
	case lifecycle.OpDeploy:
		return "DeployPipeline"
	case lifecycle.OpPlan:
		return "PlanPipeline"
	case lifecycle.OpArchive:
		return "ArchivePipeline"
	case lifecycle.OpDestroy:
		return "DestroyPipeline"
	case lifecycle.OpDeprovision:
		return "DeprovisionPipeline"
	}
	return ""
}

// Workflow IDs. The instance's is InstanceWorkflowID (io.go).

// PipelineWorkflowID names one attempt of one operation so the UI can find it.
func PipelineWorkflowID(ref Ref, op lifecycle.Operation, opID string, attempt int) string {
	return fmt.Sprintf("%s/%s-%s/attempt-%d", InstanceWorkflowID(ref), op, opID, attempt)
}

// RolloutWorkflowID is a rollout's workflow ID.
func RolloutWorkflowID(id string) string { return "rollout/" + id }

// ControlPlaneWorkflowID is a pool's registry workflow.
func ControlPlaneWorkflowID(name string) string { return "controlplane/" + name }

// InstanceSummary is the instance workflow's static summary.
func InstanceSummary(ref Ref) string { return "instance " + ref.String() }

// Update names of the instance workflow. Operations use their lifecycle names as update names;
// approvals, gates and rollouts declare theirs beside their requests.
const (
	UpdateRetry   = "retry"
	UpdateResolve = "resolve"
	UpdateAbandon = "abandon"
	// UpdateNewRun asks an idle instance to continue as new now, so that its next run starts on
	// the workers' current code and a workflow version's old branch can retire (docs/versions.md).
	UpdateNewRun = "new-run"
	// UpdateCheckDrift asks an idle Deployed instance to plan its deployed config against the world.
	UpdateCheckDrift = "check-drift"
)

// Query names.
const (
	QueryStatus = "status"
	QueryPool   = "pool"
)

// Signal names.
const (
	// SignalStep carries a pipeline's step starts and ends to its instance.
	SignalStep = "pipeline-step"
	// SignalRegisterPool registers a worker pool with its control plane.
	SignalRegisterPool = "register"
	// SignalGateTargetFailed tells a gated instance that an instance:T/N gate's target failed.
	SignalGateTargetFailed = "gate-target-failed"
	// SignalWatchReady asks an instance to say when it is Ready (an instance:T/N gate's target).
	SignalWatchReady = "watch-ready"
	// SignalObserverConfig gives the observer a new interval or deployer connection.
	SignalObserverConfig = "observer-config"
	// SignalAwaitingApproval tells the instance which plan its pipeline waits to have approved.
	SignalAwaitingApproval = "awaiting-approval"
	// SignalApprovalDecision carries an approve or reject to the waiting pipeline.
	SignalApprovalDecision = "approval-decision"
)

// NewRunResult is the run a new-run request ends; the instance goes on in the next one.
type NewRunResult struct {
	EndedRun string `json:"endedRun"`
}
