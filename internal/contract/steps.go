package contract

// Step names as they appear in status, leftovers and the Temporal UI.
const (
	Validate         = "validate"
	OpenMR           = "open-mr"
	MergeMR          = "merge-mr"
	ResolveRevision  = "resolve-revision"
	TFInit           = "tf-init"
	TFPlan           = "tf-plan"
	TFApply          = "tf-apply"
	TFDestroy        = "tf-destroy"
	DeployApp        = "deploy-app"
	RemoveApp        = "remove-app"
	ConfigDiff       = "config-diff"
	RecordFailure    = "record-failure"
	ReadStatus       = "read-status"
	BootstrapSecrets = "bootstrap-secrets"
	ForgetSecrets    = "forget-secrets"
)

// Activity names: the methods of activities.Activities, registered by method name.
const (
	ActValidateConfig   = "ValidateConfig"
	ActOpenMR           = "OpenMergeRequest"
	ActMergeMR          = "MergeMergeRequest"
	ActResolveRevision  = "ResolveRevision"
	ActTerraformInit    = "TerraformInit"
	ActTerraformPlan    = "TerraformPlan"
	ActTerraformApply   = "TerraformApply"
	ActTerraformDestroy = "TerraformDestroy"
	ActDeployApp        = "DeployApp"
	ActRemoveApp        = "RemoveApp"
	ActConfigDiff       = "ConfigDiff"
	ActCollectLeftovers = "CollectLeftovers"
	ActBootstrapSecrets = "BootstrapSecrets"
	ActForgetSecrets    = "ForgetSecrets"
	ActForceUnlock      = "ForceUnlock"
	ActSubmitCommand    = "SubmitCommand"
	ActChangedInstances = "ChangedInstances"
	ActClaimNames       = "ClaimNames"
	ActReleaseNames     = "ReleaseNames"
	ActObserveApps      = "ObserveApps"
	ActObserveApp       = "ObserveApp"
)

// AllActivities lists every activity name; a test checks each is registered.
var AllActivities = []string{
	ActValidateConfig, ActOpenMR, ActMergeMR, ActResolveRevision, ActTerraformInit,
	ActTerraformPlan, ActTerraformApply, ActTerraformDestroy, ActDeployApp, ActRemoveApp,
	ActConfigDiff, ActCollectLeftovers, ActBootstrapSecrets, ActForgetSecrets, ActForceUnlock,
	ActSubmitCommand, ActChangedInstances,
	ActClaimNames, ActReleaseNames, ActObserveApps, ActObserveApp,
	ActPlanRollout, ActRolloutDeploy, ActRolloutApprove, ActWatchWave, ActCheckDrift, ActDriftInstance, ActListDeployed, ActListDeployedPage, ActListPreview, ActListPreviewPage, ActPreviewInstance,
	ActMatchSinks, ActDeliverEvent,
	ActCloseMR, ActAnnouncePlan, ActRunHook, ActSubmitApproval, ActCheckControlPlane,
	ActRecordRender, ActVerifyRender, ActRenderOutputs,
	ActAuthorize, ActRecordAudit,
	ActWorkloadChanges,
	ActNotifyDependents,
	ActResourceStates,
	ActRetryNow,
	ActStack,
	ActCapacityAcquire, ActCapacityClosed,
}

// Steps and activities of the lifecycle controls (approvals and hooks).
const (
	Approval             = "approval"
	DrainHook            = "drain-hook"
	PostDeployHook       = "post-deploy-hook"
	ActCloseMR           = "CloseMergeRequest"
	ActAnnouncePlan      = "AnnouncePlan"
	ActRunHook           = "RunHook"
	ActSubmitApproval    = "SubmitApproval"
	ActCheckControlPlane = "CheckControlPlane"
	// ErrNotApproved ends an operation that was rejected or whose approval timed out: nothing applied.
	ErrNotApproved = "NotApproved"
	// LeftoverHook is the state a failed hook left the instance in.
	LeftoverHook = "hook"
)

// AnnounceInput tells reviewers on the MR that an operation awaits approval of a plan.
type AnnounceInput struct {
	Ref  Ref    `json:"ref"`
	MR   string `json:"mr"` // the MR's branch
	Body string `json:"body"`
	Key  string `json:"key"`
}
