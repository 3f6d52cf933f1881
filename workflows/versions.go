package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
)

// Change IDs for workflow.GetVersion. Each gates a change that would not replay
// against histories recorded before it; testsuite/histories keeps those histories.
const (
	// changeSecrets adds bootstrap-secrets to deploys and forget-secrets to deprovisions.
	changeSecrets = "secrets-bootstrap"
	// changePlanValidation validates a plan's proposed config before the plan starts.
	changePlanValidation = "plan-validation"
	// changeNames records the instance's derived names: claimed at provision, released after
	// deprovision, the old rule's names recorded for instances from before.
	changeNames = "recorded-names"
	// changeStalePlan plans again, once, when an apply finds its plan stale.
	changeStalePlan = "replan-stale-plan"
	// changeStepSignals sends one step signal per step: an ended step rides on the next start.
	changeStepSignals = "one-signal-per-step"
	// changeLocalSteps runs the short read-only or idempotent steps as local activities.
	changeLocalSteps = "local-short-steps"
	// changeNotifications starts a notification workflow on Failed, Ready and Drifted transitions.
	changeNotifications = "notifications"
	// changeControls runs approvals before destructive changes and the stack's lifecycle hooks.
	changeControls = "lifecycle-controls"
	// changeRenderProvenance records the hashes of slipway's merges and verifies them before terraform or a hook runs;
	// version 2 verifies as a local step whose start rides on the next step's signal.
	changeRenderProvenance = "render-provenance"
	// changeClaimRecorded claims the names an instance recorded without claiming them (the legacy ones).
	changeClaimRecorded = "claim-recorded-names"
	// changePolicyApprovals asks the policy, with the plan, whether and by whom an operation must be approved.
	changePolicyApprovals = "policy-approvals"
	// changeVerifiedApprover checks an approval of a wait from before the policy against the verified approver's name.
	changeVerifiedApprover = "verified-approver"
	// changeVerifiedRequests verifies every start, update and signal's attestation (internal/attest's
	// worker interceptor calls it first in every run; runs from before keep accepting unattested ones).
	changeVerifiedRequests = attest.ChangeVerifiedRequests
	// changeLeanParked receives an instance's signals in one coroutine instead of five and upserts only changed search attributes.
	changeLeanParked = "lean-parked-instance"
	// changeStackBudgets gives terraform steps the stack's schema.timeouts instead of the fixed hour.
	changeStackBudgets = "stack-budgets"
	// changeRenderOutputs renders the manifests that use terraform outputs again after a deploy's apply and merges them.
	changeRenderOutputs = "render-outputs"
	// changeDrainBeforeReplace drains before a deploy's apply that replaces or deletes, and recreates on request.
	changeDrainBeforeReplace = "drain-before-replace"
	// changeInstanceDependencies records an instance's dependencies, tells dependents of changed outputs and of a failure.
	changeInstanceDependencies = "instance-dependencies"
	// changeCancelRunning lets cancel stop a running provision or deploy, and a teardown asked for meanwhile wait in PreTerminate.
	changeCancelRunning = "cancel-running"
	// changePlanCurrentStack makes plan and a plain deploy render the committed instance file against the stack on main.
	changePlanCurrentStack = "plan-current-stack"
)

// approvesByPolicy reports whether this pipeline's approvals are the policy's decision (with the
// plan JSON) rather than the stack's approval rule alone.
func approvesByPolicy(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changePolicyApprovals, workflow.DefaultVersion, 1) >= 1
}

// withSecrets reports whether this pipeline run takes the secret steps.
func withSecrets(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeSecrets, workflow.DefaultVersion, 1) >= 1
}

// validatesPlans reports whether a plan with a config is validated up front.
func validatesPlans(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changePlanValidation, workflow.DefaultVersion, 1) >= 1
}

// replansStalePlans reports whether an apply whose plan went stale plans again and applies that.
func replansStalePlans(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeStalePlan, workflow.DefaultVersion, 1) >= 1
}

// recordsNames reports whether this run records, claims and releases derived names.
func recordsNames(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeNames, workflow.DefaultVersion, 1) >= 1
}

// batchesStepSignals reports whether this pipeline holds ended steps for the next start signal.
func batchesStepSignals(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeStepSignals, workflow.DefaultVersion, 1) >= 1
}

// runsShortStepsLocally reports whether validation, revision, diff and secret steps run as local activities.
func runsShortStepsLocally(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeLocalSteps, workflow.DefaultVersion, 1) >= 1
}

// notifies reports whether this run notifies the sinks of transitions.
func notifies(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeNotifications, workflow.DefaultVersion, 1) >= 1
}

// runsControls reports whether this pipeline runs approvals and lifecycle hooks.
func runsControls(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeControls, workflow.DefaultVersion, 1) >= 1
}

// verifiesRenders reports whether this pipeline records what its merge rendered and verifies the
// instance's files against the record before terraform or a hook runs from them, and whether
// that step signals its start (version 1) or lets it ride on the next step's (version 2).
func verifiesRenders(ctx workflow.Context) (verifies, quietly bool) {
	v := workflow.GetVersion(ctx, changeRenderProvenance, workflow.DefaultVersion, 2)
	return v >= 1, v >= 2
}

// claimsRecordedNames reports whether this run claims names the instance recorded but never
// claimed, and whether it claims them at its start too (version 1) or only at its next request
// (version 2: a parked instance's history stays as short as before, and the refs that could
// derive an unclaimed legacy name are refused by names.LegacyShaped).
func claimsRecordedNames(ctx workflow.Context) (claims, atStart bool) {
	v := workflow.GetVersion(ctx, changeClaimRecorded, workflow.DefaultVersion, 2)
	return v >= 1, v == 1
}

// rendersOutputs reports whether a deploy renders its manifests' .Outputs after the apply.
func rendersOutputs(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeRenderOutputs, workflow.DefaultVersion, 1) >= 1
}

// drainsBeforeReplace reports whether a deploy runs the drain hook before an apply that replaces
// or deletes, and whether it honours a recreate.
func drainsBeforeReplace(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeDrainBeforeReplace, workflow.DefaultVersion, 1) >= 1
}

// tracksDependencies reports whether this run records dependencies and tells dependents of outputs and failures.
func tracksDependencies(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeInstanceDependencies, workflow.DefaultVersion, 1) >= 1
}

// cancelsRunning reports whether this run stops a running operation on cancel (and PreTerminate).
func cancelsRunning(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeCancelRunning, workflow.DefaultVersion, 1) >= 1
}

// rendersCurrentStack reports whether a plan's terraform half and a plain deploy render the
// committed instance file against the stack on main (a deploy merges that render first).
func rendersCurrentStack(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changePlanCurrentStack, workflow.DefaultVersion, 1) >= 1
}
