package workflows

import "go.temporal.io/sdk/workflow"

// NameClaimWorkflowName is the workflow that holds one derived name for one instance.
const NameClaimWorkflowName = "NameClaimWorkflow"

// SignalRelease asks a name claim to end; it carries the owner, so only the holder can release.
const SignalRelease = "release"

// MemoOwner is the memo key that names a claim's holder (TENANT/NAME).
const MemoOwner = "owner"

// NameClaim is a claim's input: which name, of which kind, held by which instance.
type NameClaim struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	Owner string `json:"owner"`
}

// NameClaimWorkflowID is the claim's ID. Temporal runs one workflow per ID at a time, so the
// ID makes a claim atomic and shared by every worker without storage of its own.
func NameClaimWorkflowID(kind, value string) string { return "name/" + kind + "/" + value }

// NameClaimWorkflow holds its name until its owner releases it.
func NameClaimWorkflow(ctx workflow.Context, in NameClaim) error {
	ch := workflow.GetSignalChannel(ctx, SignalRelease)
	for {
		var owner string
		ch.Receive(ctx, &owner)
		if owner == in.Owner {
			return nil
		}
		workflow.GetLogger(ctx).Warn("release by another instance ignored", "name", in.Value, "owner", in.Owner, "from", owner)
	}
}
