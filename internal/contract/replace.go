package contract

import (
	"slices"
	"strings"
)

// Replaces reports whether the change deletes the resource and creates it again (either order).
func (rc ResourceChange) Replaces() bool {
	return slices.Contains(rc.Actions, "delete") && slices.Contains(rc.Actions, "create")
}

// IsStateful reports whether the change's resource is one the stack marks stateful: its type
// or its address without an instance index, as schema.yaml's stateful: lists them.
func (rc ResourceChange) IsStateful(stateful []string) bool {
	addr := rc.Address
	if i := strings.LastIndexByte(addr, '['); i > 0 && strings.HasSuffix(addr, "]") {
		addr = addr[:i]
	}
	typ := rc.Type
	if typ == "" { // summaries from before Type was kept: the last type.name pair of the address
		parts := strings.Split(addr, ".")
		if len(parts) >= 2 {
			typ = parts[len(parts)-2]
		}
	}
	for _, s := range stateful {
		if s == addr || s == typ {
			return true
		}
	}
	return false
}

// ActWorkloadChanges lists the workloads a deploy deletes or recreates (activities.WorkloadChanges).
const ActWorkloadChanges = "WorkloadChanges"

// WorkloadsInput compares the instance's manifests at the deployed revision (From) and the new one (To).
type WorkloadsInput struct {
	Ref  Ref    `json:"ref"`
	From string `json:"from"`
	To   string `json:"to"`
}
