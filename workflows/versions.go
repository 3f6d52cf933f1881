package workflows

import "go.temporal.io/sdk/workflow"

// Change IDs for workflow.GetVersion. Each gates a change that would not replay
// against histories recorded before it; testsuite/histories keeps those histories.
const (
	// changeSecrets adds bootstrap-secrets to deploys and forget-secrets to deprovisions.
	changeSecrets = "secrets-bootstrap"
	// changePlanValidation validates a plan's proposed config before the plan starts.
	changePlanValidation = "plan-validation"
)

// withSecrets reports whether this pipeline run takes the secret steps.
func withSecrets(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeSecrets, workflow.DefaultVersion, 1) >= 1
}

// validatesPlans reports whether a plan with a config is validated up front.
func validatesPlans(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changePlanValidation, workflow.DefaultVersion, 1) >= 1
}
