package contract

// The policy decision every request goes through (internal/policy).
const (
	// ActAuthorize asks the policy whether the actor may do the operation (a local activity).
	ActAuthorize = "Authorize"
	// ErrPolicyInput is a request the policy cannot decide on; details: []FieldError.
	ErrPolicyInput = "PolicyInput"
	// ErrPolicy is a policy that fails to decide (an undeclared group, a broken rule): an
	// operator must fix the policy, retrying will not help.
	ErrPolicy = "PolicyError"
)
