package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/slipway-dev/slipway/internal/attest"
	"github.com/slipway-dev/slipway/internal/contract"
)

// Change IDs for workflow.GetVersion. Each gates a change that would not replay
// against histories recorded before it; testsuite/histories keeps those histories, and
// Changes below records when each came and which histories pin its old branches.
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
	// worker interceptor calls it first in every run; runs from before keep accepting unattested ones);
	// version 2 has the policy decide updates; version 3 writes audit records to the durable log;
	// version 4 is ridingVersion; version 5 is workerStartsVersion; version 6 is knownDependentsVersion;
	// version 7 is deferredStartsVersion.
	changeVerifiedRequests = attest.ChangeVerifiedRequests
	// changeLeanParked receives an instance's signals in one coroutine instead of five and upserts only changed search attributes;
	// version 2 receives them in the main loop, with no coroutine of their own.
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
	// changeArchiveInGit makes an archive mark the instance file archived through its own MR.
	changeArchiveInGit = "archive-in-git"
	// changeDependents has a dependent tell its dependencies when it stops depending on them, and an instance
	// whose changed outputs could not be passed on mark those dependents DependencyStale and notify.
	changeDependents = "dependents-registered"
	// changeRolloutWatch watches each wave of a rollout with a watch time (--watch) before the next starts.
	changeRolloutWatch = "rollout-watch"
	// changeExpiry runs an instance's expiry: warnings, then its stack's action at the end, as who set it.
	changeExpiry = "instance-expiry"
	// changeRolloutApproval has an instance tell the rollout that sent its deploy that the deploy waits
	// for approval, with the plan, so the rollout can approve it once per plan shape.
	changeRolloutApproval = "rollout-approval"
	// changeCapacity has terraform apply and destroy wait for a slot of the capacity budget the stack names.
	changeCapacity = "capacity-budgets"
	// changePreviewContinue has a stack preview continue as new every previewBatch instances, carrying only its groups.
	changePreviewContinue = "preview-continue-as-new"
	// changeSweepPages has a drift sweep list a page a run and carry the next page's token, not what is left of the fleet.
	changeSweepPages = "drift-sweep-pages"
	// changePreviewPages has a stack preview list a page a run and carry the next page's token, not the
	// instances left, and count the instances not planned beyond a bound rather than name each.
	changePreviewPages = "preview-pages"
)

// Change is the record of one GetVersion change ID, kept so its old branches can be retired
// (docs/versions.md): a branch goes once no running workflow takes it, with the histories that pin it.
type Change struct {
	ID string
	// Added is the day the change landed and Commit the commit that added it (git log -S'"<id>"' --reverse;
	// a change adds its entry with Added and fills Commit once it has landed).
	Added, Commit string
	// Max is the newest version: the maxSupported of its GetVersion call.
	Max workflow.Version
	// Workflows are the workflow types whose runs call it; none means every type (a worker interceptor calls it).
	Workflows []string
	// Pinned names, for each version below Max, the committed histories (testsuite/histories/<dir>)
	// whose runs took that branch: they stop replaying once the branch is deleted, and go with it.
	Pinned map[workflow.Version][]string
	// RidesOn is the version of verified-requests from which a run takes Max without asking
	// GetVersion for this change (rides); 0: every run asks.
	RidesOn workflow.Version
}

// ridingVersion is the version of verified-requests, the marker the attest interceptor records at the
// top of every run, whose runs take the newest branch of every change with RidesOn set: a fresh run
// records that one marker and upsert instead of one of each per change (issue 40, docs/performance.md).
const ridingVersion = 4

// workerStartsVersion is the version of verified-requests from which the worker of a pipeline step's
// first activity sends the step's start signal, not the pipeline (issue 40, docs/performance.md).
const workerStartsVersion = 5

// knownDependentsVersion is the version of verified-requests from which an instance created at it
// knows it holds every dependent it has (DependentsKnown): with none, changed outputs go to nobody.
const knownDependentsVersion = 6

// deferredStartsVersion is the version of verified-requests from which a step's worker tells its
// start only once the step has run contract.StepStartDelay or failed, and every step signal
// carries every step the run ended (issue 40, docs/performance.md).
const deferredStartsVersion = 7

// defersStarts reports whether this pipeline run lets its workers leave a quick step's start untold.
func defersStarts(ctx workflow.Context) bool { return attest.RunVersion(ctx) >= deferredStartsVersion }

// startsFromWorker reports whether this pipeline run leaves its steps' start signals to the workers
// of their first activities (workerStarted); runs from before keep signalling them themselves.
func startsFromWorker(ctx workflow.Context) bool {
	return attest.RunVersion(ctx) >= workerStartsVersion
}

// rides reports whether this run took ridingVersion, so each change riding on it is at its newest branch.
func rides(ctx workflow.Context) bool { return attest.RunVersion(ctx) >= ridingVersion }

// The workflow types the changes name.
const (
	instanceType    = "InstanceWorkflow"
	provisionType   = "ProvisionPipeline"
	deployType      = "DeployPipeline"
	planType        = "PlanPipeline"
	archiveType     = "ArchivePipeline"
	destroyType     = "DestroyPipeline"
	deprovisionType = "DeprovisionPipeline"
	rolloutType     = "RolloutWorkflow"
	previewType     = "StackPreviewWorkflow"
	driftSweepType  = "DriftSweepWorkflow"
)

// pipelines are the operations' workflow types (PipelineName).
var pipelines = []string{provisionType, deployType, planType, archiveType, destroyType, deprovisionType}

// Changes is every change ID the workflows pass to workflow.GetVersion, oldest first
// (testsuite's TestVersionRegistry checks it against the code and the committed histories).
var Changes = []Change{
	{ID: changeSecrets, Added: "2026-11-22", Commit: "10f7949", Max: 1, RidesOn: ridingVersion, Workflows: []string{deployType, deprovisionType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"lifecycle-v0"},
		}},
	{ID: changePlanValidation, Added: "2026-11-22", Commit: "64676eb", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"lifecycle-v0"},
		}},
	{ID: changeNames, Added: "2026-11-23", Commit: "03fb9c7", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"force-unlock", "lifecycle-v0", "lifecycle-v1"},
		}},
	{ID: changeStalePlan, Added: "2026-11-23", Commit: "6a97fd4", Max: 1, RidesOn: ridingVersion, Workflows: []string{deployType}},
	{ID: changeStepSignals, Added: "2026-11-23", Commit: "838c10c", Max: 1, RidesOn: ridingVersion, Workflows: pipelines,
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"force-unlock", "lifecycle-v0", "lifecycle-v1", "names", "observe"},
		}},
	{ID: changeLocalSteps, Added: "2026-11-23", Commit: "838c10c", Max: 1, RidesOn: ridingVersion, Workflows: append([]string{instanceType}, pipelines...),
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"force-unlock", "lifecycle-v0", "lifecycle-v1", "names", "observe"},
		}},
	{ID: changeNotifications, Added: "2026-11-23", Commit: "6f7d6ab", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"force-unlock", "observe"},
		}},
	{ID: changeControls, Added: "2026-11-24", Commit: "3926c77", Max: 1, RidesOn: ridingVersion, Workflows: pipelines,
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"drift", "force-unlock", "gates", "lifecycle", "lifecycle-v0", "lifecycle-v1", "names", "notify", "observe"},
		}},
	{ID: changeRenderProvenance, Added: "2026-11-24", Commit: "5a3f4e6", Max: 2, RidesOn: ridingVersion, Workflows: pipelines,
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"approvals", "controlplanes", "drift", "force-unlock", "gates", "hooks", "lifecycle", "lifecycle-v0", "lifecycle-v1", "names", "notify", "observe"},
			1:                       {"render-provenance"},
		}},
	{ID: changeClaimRecorded, Added: "2026-11-24", Commit: "c6e3b79", Max: 2, RidesOn: ridingVersion, Workflows: []string{instanceType},
		Pinned: map[workflow.Version][]string{
			1: {"legacy-names-claimed"},
		}},
	{ID: changeVerifiedRequests, Added: "2026-11-24", Commit: "3c1cff9", Max: deferredStartsVersion, Workflows: nil,
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"approvals", "controlplanes", "drift", "force-unlock", "gates", "hooks", "legacy-names-claimed", "legacy-names-claimed-v2", "lifecycle", "lifecycle-v0", "lifecycle-v1", "names", "notify", "observe", "observer", "render-provenance", "render-provenance-v2", "rollout", "webhook-delivery"},
			1:                       {"verified-requests"},
			2:                       {"approvals-policy", "approvals-signal-inline", "approvals-signal-lanes", "approvals-stateful-replace", "cancel-running", "cancel-running-preterminate", "drain-before-replace", "gates-signal-inline", "gates-signal-lanes", "instance-dependencies", "instance-dependencies-failed", "instance-dependencies-outputs", "plan-current-stack", "plan-current-stack-local-create", "render-outputs", "stack-budgets", "verified-requests-v2"},
			4:                       {"lifecycle-2026-11-27"},
			5:                       {"drift-sweep", "worker-step-starts"},
			6:                       {"lifecycle-2026-12-02", "stack-preview"},
		}},
	{ID: changePolicyApprovals, Added: "2026-11-24", Commit: "13d08a3", Max: 1, RidesOn: ridingVersion, Workflows: pipelines,
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"approvals", "controlplanes", "hooks", "legacy-names-claimed-v2", "render-provenance", "render-provenance-v2", "verified-requests", "verified-requests-v2"},
		}},
	{ID: changeVerifiedApprover, Added: "2026-11-24", Commit: "a1227f9", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"verified-requests", "verified-requests-v2"},
		}},
	{ID: changeLeanParked, Added: "2026-11-24", Commit: "f4347e3", Max: 2, RidesOn: ridingVersion, Workflows: []string{instanceType},
		Pinned: map[workflow.Version][]string{
			1:                       {"approvals-signal-lanes", "cancel-running", "cancel-running-preterminate", "drain-before-replace", "gates-signal-lanes", "instance-dependencies", "instance-dependencies-failed", "instance-dependencies-outputs", "plan-current-stack", "plan-current-stack-local-create", "render-outputs", "stack-budgets"},
			workflow.DefaultVersion: {"approvals", "approvals-policy", "approvals-stateful-replace", "controlplanes", "drift", "force-unlock", "gates", "hooks", "legacy-names-claimed", "legacy-names-claimed-v2", "lifecycle", "lifecycle-v0", "lifecycle-v1", "names", "notify", "observe", "render-provenance", "render-provenance-v2", "verified-requests", "verified-requests-v2"},
		}},
	{ID: changeStackBudgets, Added: "2026-11-24", Commit: "938fe17", Max: 1, RidesOn: ridingVersion, Workflows: pipelines},
	{ID: changeRenderOutputs, Added: "2026-11-24", Commit: "b6362e7", Max: 1, RidesOn: ridingVersion, Workflows: []string{deployType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"approvals-policy", "approvals-signal-lanes", "approvals-stateful-replace", "gates-signal-lanes", "render-provenance", "render-provenance-v2", "stack-budgets", "verified-requests", "verified-requests-v2"},
		}},
	{ID: changeDrainBeforeReplace, Added: "2026-11-24", Commit: "78aa9cb", Max: 1, RidesOn: ridingVersion, Workflows: []string{deployType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"approvals", "approvals-policy", "approvals-signal-lanes", "approvals-stateful-replace", "cancel-running", "cancel-running-preterminate", "controlplanes", "drift", "force-unlock", "gates", "gates-signal-lanes", "hooks", "instance-dependencies", "instance-dependencies-failed", "instance-dependencies-outputs", "lifecycle", "lifecycle-v0", "lifecycle-v1", "notify", "observe", "plan-current-stack", "plan-current-stack-local-create", "render-outputs", "render-provenance", "render-provenance-v2", "stack-budgets", "verified-requests", "verified-requests-v2"},
		}},
	{ID: changePlanCurrentStack, Added: "2026-11-24", Commit: "c2dacfa", Max: 1, RidesOn: ridingVersion, Workflows: []string{deployType, planType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"approvals", "approvals-policy", "approvals-signal-lanes", "approvals-stateful-replace", "cancel-running", "cancel-running-preterminate", "controlplanes", "drain-before-replace", "drift", "force-unlock", "gates", "gates-signal-lanes", "hooks", "instance-dependencies", "instance-dependencies-failed", "instance-dependencies-outputs", "legacy-names-claimed-v2", "lifecycle", "lifecycle-v0", "lifecycle-v1", "notify", "observe", "render-outputs", "render-provenance", "render-provenance-v2", "stack-budgets"},
		}},
	{ID: changeInstanceDependencies, Added: "2026-11-24", Commit: "ba49260", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"drain-before-replace", "plan-current-stack", "plan-current-stack-local-create", "render-outputs"},
		}},
	{ID: changeCancelRunning, Added: "2026-11-24", Commit: "ebf4554", Max: 1, RidesOn: ridingVersion, Workflows: append([]string{instanceType}, pipelines...)},
	{ID: changeArchiveInGit, Added: "2026-11-27", Max: 1, RidesOn: ridingVersion, Workflows: []string{archiveType},
		Pinned: map[workflow.Version][]string{
			workflow.DefaultVersion: {"approvals", "approvals-policy", "approvals-signal-inline", "approvals-signal-lanes", "hooks", "lifecycle", "lifecycle-v0", "lifecycle-v1"},
		}},
	{ID: changeDependents, Added: "2026-11-27", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType}},
	{ID: changeRolloutWatch, Added: "2026-11-27", Max: 1, Workflows: []string{rolloutType}},
	{ID: changeExpiry, Added: "2026-11-27", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType}},
	{ID: changeRolloutApproval, Added: "2026-11-27", Max: 1, RidesOn: ridingVersion, Workflows: []string{instanceType}},
	{ID: changeCapacity, Added: "2026-11-27", Max: 1, RidesOn: ridingVersion, Workflows: pipelines},
	{ID: changePreviewContinue, Added: "2026-11-27", Max: 1, Workflows: []string{previewType}},
	{ID: changeSweepPages, Added: "2026-12-02", Max: 1, Workflows: []string{driftSweepType},
		Pinned: map[workflow.Version][]string{workflow.DefaultVersion: {"drift-sweep"}}},
	{ID: changePreviewPages, Added: "2026-12-07", Max: 1, Workflows: []string{previewType},
		Pinned: map[workflow.Version][]string{workflow.DefaultVersion: {"stack-preview"}}},
}

// ChangeByID returns the record of the change id.
func ChangeByID(id string) (Change, bool) {
	for _, c := range Changes {
		if c.ID == id {
			return c, true
		}
	}
	return Change{}, false
}

// RunningOnQuery is the visibility query for the running workflows that may still take
// branch v or an older one of c: those whose TemporalChangeVersion (the server's keyword list of
// "<id>-<version>" a run recorded) holds no newer version, nor a verified-requests version c rides on.
// A run that has not reached the call yet is listed too: it is not known to be past the branch.
func (c Change) RunningOnQuery(v workflow.Version) string {
	var newer []string
	for n := max(v+1, 1); n <= c.Max; n++ {
		newer = append(newer, fmt.Sprintf("%q", fmt.Sprintf("%s-%d", c.ID, n)))
	}
	if c.RidesOn > 0 {
		vr, _ := ChangeByID(changeVerifiedRequests)
		for n := c.RidesOn; n <= vr.Max; n++ {
			newer = append(newer, fmt.Sprintf("%q", fmt.Sprintf("%s-%d", vr.ID, n)))
		}
	}
	q := `ExecutionStatus = "Running"`
	if len(c.Workflows) > 0 {
		types := make([]string, len(c.Workflows))
		for i, t := range c.Workflows {
			types[i] = fmt.Sprintf("%q", t)
		}
		q += " AND WorkflowType IN (" + strings.Join(types, ", ") + ")"
	}
	q += " AND NOT (TemporalChangeVersion IN (" + strings.Join(newer, ", ") + "))"
	if len(c.Workflows) == 0 {
		// A held name claim has run no workflow task (internal/nameclaim's start delay): it is on no branch.
		q += fmt.Sprintf(" AND NOT (WorkflowType = %q AND TemporalChangeVersion IS NULL)", contract.NameClaimWorkflowName)
	}
	return q
}

// approvesByPolicy reports whether this pipeline's approvals are the policy's decision (with the
// plan JSON) rather than the stack's approval rule alone.
func approvesByPolicy(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changePolicyApprovals, workflow.DefaultVersion, 1) >= 1
}

// withSecrets reports whether this pipeline run takes the secret steps.
func withSecrets(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeSecrets, workflow.DefaultVersion, 1) >= 1
}

// validatesPlans reports whether a plan with a config is validated up front.
func validatesPlans(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changePlanValidation, workflow.DefaultVersion, 1) >= 1
}

// replansStalePlans reports whether an apply whose plan went stale plans again and applies that.
func replansStalePlans(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeStalePlan, workflow.DefaultVersion, 1) >= 1
}

// recordsNames reports whether this run records, claims and releases derived names.
func recordsNames(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeNames, workflow.DefaultVersion, 1) >= 1
}

// batchesStepSignals reports whether this pipeline holds ended steps for the next start signal.
func batchesStepSignals(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeStepSignals, workflow.DefaultVersion, 1) >= 1
}

// runsShortStepsLocally reports whether validation, revision, diff and secret steps run as local activities.
func runsShortStepsLocally(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeLocalSteps, workflow.DefaultVersion, 1) >= 1
}

// notifies reports whether this run notifies the sinks of transitions.
func notifies(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeNotifications, workflow.DefaultVersion, 1) >= 1
}

// runsControls reports whether this pipeline runs approvals and lifecycle hooks.
func runsControls(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeControls, workflow.DefaultVersion, 1) >= 1
}

// verifiesRenders reports whether this pipeline records what its merge rendered and verifies the
// instance's files against the record before terraform or a hook runs from them, and whether
// that step signals its start (version 1) or lets it ride on the next step's (version 2).
func verifiesRenders(ctx workflow.Context) (verifies, quietly bool) {
	if rides(ctx) {
		return true, true
	}
	v := workflow.GetVersion(ctx, changeRenderProvenance, workflow.DefaultVersion, 2)
	return v >= 1, v >= 2
}

// claimsRecordedNames reports whether this run claims names the instance recorded but never
// claimed, and whether it claims them at its start too (version 1) or only at its next request
// (version 2: a parked instance's history stays as short as before, and the refs that could
// derive an unclaimed legacy name are refused by names.LegacyShaped).
func claimsRecordedNames(ctx workflow.Context) (claims, atStart bool) {
	if rides(ctx) {
		return true, false
	}
	v := workflow.GetVersion(ctx, changeClaimRecorded, workflow.DefaultVersion, 2)
	return v >= 1, v == 1
}

// rendersOutputs reports whether a deploy renders its manifests' .Outputs after the apply.
func rendersOutputs(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeRenderOutputs, workflow.DefaultVersion, 1) >= 1
}

// drainsBeforeReplace reports whether a deploy runs the drain hook before an apply that replaces
// or deletes, and whether it honours a recreate.
func drainsBeforeReplace(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeDrainBeforeReplace, workflow.DefaultVersion, 1) >= 1
}

// tracksDependencies reports whether this run records dependencies and tells dependents of outputs and failures.
func tracksDependencies(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeInstanceDependencies, workflow.DefaultVersion, 1) >= 1
}

// cancelsRunning reports whether this run stops a running operation on cancel (and PreTerminate).
func cancelsRunning(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeCancelRunning, workflow.DefaultVersion, 1) >= 1
}

// rendersCurrentStack reports whether a plan's terraform half and a plain deploy render the
// committed instance file against the stack on main (a deploy merges that render first).
func rendersCurrentStack(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changePlanCurrentStack, workflow.DefaultVersion, 1) >= 1
}

// recordsArchive reports whether an archive marks the instance file archived: true through its
// own MR once the app is gone, so the repository alone says which instances are archived.
func recordsArchive(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeArchiveInGit, workflow.DefaultVersion, 1) >= 1
}

// registersDependents reports whether this run tells its dependencies when it stops depending on
// them, and marks its dependents stale when its changed outputs could not be passed on. It is
// called only on those paths, so an instance without dependencies records nothing for it.
func registersDependents(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeDependents, workflow.DefaultVersion, 1) >= 1
}

// tellsRolloutOfApprovals reports whether a deploy a rollout sent tells it when it waits for approval;
// only such deploys ask, so lifecycles without a rollout record nothing for it.
func tellsRolloutOfApprovals(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeRolloutApproval, workflow.DefaultVersion, 1) >= 1
}

// watchesWaves reports whether this run watches a wave's health before the next; only a rollout
// with --watch asks, so the others record nothing for it.
func watchesWaves(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeRolloutWatch, workflow.DefaultVersion, 1) >= 1
}

// runsExpiry reports whether this run keeps an instance's expiry. It is called only for an
// instance whose config sets one, so an instance without records nothing for it.
func runsExpiry(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeExpiry, workflow.DefaultVersion, 1) >= 1
}

// drawsCapacity reports whether a terraform apply or destroy waits for a slot of the stack's
// capacity budget; only a stack that names one asks, so the others record nothing for it.
func drawsCapacity(ctx workflow.Context) bool {
	return rides(ctx) || workflow.GetVersion(ctx, changeCapacity, workflow.DefaultVersion, 1) >= 1
}
