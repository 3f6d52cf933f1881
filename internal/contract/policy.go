package contract

// The policy decision every request goes through (internal/policy).
const (
	// ActAuthorize asks the policy whether the actor may do the operation (a local activity).
	ActAuthorize = "Authorize"
	// ActRecordAudit writes an instance's audit record to the durable audit log (a local
	// activity: its marker holds the record, which `slipway events` reads).
	ActRecordAudit = "RecordAudit"
	// ErrPolicyInput is a request the policy cannot decide on; details: []FieldError.
	ErrPolicyInput = "PolicyInput"
	// ErrPolicy is a policy that fails to decide (an undeclared group, a broken rule): an
	// operator must fix the policy, retrying will not help.
	ErrPolicy = "PolicyError"
)

// AuditWrite is an instance's audit record on its way to the durable audit log.
type AuditWrite struct {
	Ref    Ref         `json:"ref"`
	Record AuditRecord `json:"record"`
}
