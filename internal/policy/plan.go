package policy

import (
	"encoding/json"
	"fmt"
)

// SlimPlan keeps of a `terraform show -json` plan what the policies read: each resource change's
// address, module_address, mode, type, name, index, provider_name, change.actions and
// action_reason, and the plan's format_version and terraform_version. Attribute values (before,
// after, prior_state, variables, configuration) are left out: they may hold secrets, and a plan
// large enough would not fit in a workflow's history.
func SlimPlan(raw []byte) (json.RawMessage, error) {
	type change struct {
		Actions []string `json:"actions"`
	}
	type resourceChange struct {
		Address       string          `json:"address"`
		ModuleAddress string          `json:"module_address,omitempty"`
		Mode          string          `json:"mode,omitempty"`
		Type          string          `json:"type"`
		Name          string          `json:"name"`
		Index         json.RawMessage `json:"index,omitempty"`
		ProviderName  string          `json:"provider_name,omitempty"`
		Change        change          `json:"change"`
		ActionReason  string          `json:"action_reason,omitempty"`
	}
	var p struct {
		FormatVersion    string           `json:"format_version,omitempty"`
		TerraformVersion string           `json:"terraform_version,omitempty"`
		ResourceChanges  []resourceChange `json:"resource_changes"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("plan: not terraform show -json output: %w", err)
	}
	if p.ResourceChanges == nil {
		p.ResourceChanges = []resourceChange{}
	}
	return json.Marshal(p)
}
