package workflows

import "go.temporal.io/sdk/workflow"

// Change IDs for workflow.GetVersion. Each gates a change that would not replay
// against histories recorded before it; testsuite/histories keeps those histories.
const (
	// changeSecrets adds bootstrap-secrets to deploys and forget-secrets to deprovisions.
	changeSecrets = "secrets-bootstrap"
)

// withSecrets reports whether this pipeline run takes the secret steps.
func withSecrets(ctx workflow.Context) bool {
	return workflow.GetVersion(ctx, changeSecrets, workflow.DefaultVersion, 1) >= 1
}
