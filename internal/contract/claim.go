package contract

import (
	"github.com/slipway-dev/slipway/internal/names"
)

// NamesInput claims (or releases) an instance's derived names in every system that shares them.
type NamesInput struct {
	Ref   Ref         `json:"ref"`
	Names names.Names `json:"names"`
	// Legacy claims names an instance already has from the old rule: the reserved list does not apply.
	Legacy bool `json:"legacy,omitempty"`
}

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
