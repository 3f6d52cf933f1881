package contract

import (
	"encoding/json"
	"strings"
)

// planJSON is `terraform show -json` of a saved plan trimmed to what a policy reads: the
// resource_changes, each with its address, mode, type, name and change.actions.
type planJSON struct {
	ResourceChanges []planResourceChange `json:"resource_changes"`
}

type planResourceChange struct {
	Address string     `json:"address"`
	Mode    string     `json:"mode"`
	Type    string     `json:"type"`
	Name    string     `json:"name"`
	Change  planChange `json:"change"`
}

type planChange struct {
	Actions []string `json:"actions"`
}

// PolicyJSON is the plan as the policy's input.plan: terraform's show JSON trimmed to the
// resource_changes the summary kept (every resource the plan changes), so it stays small in
// history whatever the plan's values hold, and carries none of them (no secrets, no sizes).
func (s PlanSummary) PolicyJSON() json.RawMessage {
	out := planJSON{ResourceChanges: []planResourceChange{}}
	for _, rc := range s.Resources {
		typ, name := rc.Type, rc.Name
		if typ == "" {
			typ, name = typeAndName(rc.Address)
		}
		out.ResourceChanges = append(out.ResourceChanges, planResourceChange{Address: rc.Address, Mode: "managed",
			Type: typ, Name: name, Change: planChange{Actions: append([]string{}, rc.Actions...)}})
	}
	raw, _ := json.Marshal(out) // plain strings and slices: it cannot fail
	return raw
}

// typeAndName reads TYPE and NAME from an address such as module.db.aws_db_instance.main[0]:
// the two segments after any module.NAME[...] pairs.
func typeAndName(addr string) (string, string) {
	parts := strings.Split(addr, ".")
	for len(parts) >= 2 && parts[0] == "module" {
		parts = parts[2:]
	}
	if len(parts) > 0 && parts[0] == "data" {
		parts = parts[1:]
	}
	if len(parts) < 2 {
		return "", ""
	}
	name, _, _ := strings.Cut(parts[1], "[")
	return parts[0], name
}
