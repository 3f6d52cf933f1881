package contract

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/slipway-dev/slipway/internal/forge"
)

// Bounds on the outputs an instance keeps: they ride in the apply's result and the instance's
// state, so a stack with large outputs must not grow every parked instance's history.
const (
	MaxOutputValue = 1024     // bytes of one output's value
	MaxOutputs     = 32       // outputs kept, by name order
	MaxOutputTotal = 4 * 1024 // bytes of all kept values together: at most ~5 KiB on a parked instance
)

// OmittedOutput is what stands for a value over the bounds.
const OmittedOutput = "[omitted: %d bytes, over slipway's limit of %d bytes for outputs in status]"

// MoreOutputs is the entry that counts the outputs past MaxOutputs.
const MoreOutputs = "(more)"

// BoundOutputs turns terraform's outputs (sensitive ones already masked) into the strings status
// shows: strings as they are, other values as compact JSON, each value and the whole map bounded.
func BoundOutputs(outputs map[string]any) map[string]string {
	if len(outputs) == 0 {
		return nil
	}
	names := make([]string, 0, len(outputs))
	for n := range outputs {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make(map[string]string, min(len(names), MaxOutputs))
	total := 0
	for i, n := range names {
		if i == MaxOutputs {
			// No terraform output is named so: the note cannot shadow one.
			out[MoreOutputs] = fmt.Sprintf("%d more output(s) not kept", len(names)-MaxOutputs)
			break
		}
		v := OutputString(outputs[n])
		switch {
		case len(v) > MaxOutputValue:
			v = fmt.Sprintf(OmittedOutput, len(v), MaxOutputValue)
		case total+len(v) > MaxOutputTotal:
			v = fmt.Sprintf(OmittedOutput, len(v), MaxOutputTotal)
		default:
			total += len(v)
		}
		out[n] = v
	}
	return out
}

// OutputString is one output's value as text: a string as it is, anything else as compact JSON.
func OutputString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// A deploy whose stack's manifests use .Outputs renders them again after its apply, from the
// stack and instance at the revision it applied, and merges them through an MR of its own.
const (
	RenderOutputs    = "render-outputs"
	ActRenderOutputs = "RenderOutputs"
)

// RenderOutputsInput names the revision the deploy applied; OpID keys the MR's branch.
type RenderOutputsInput struct {
	Ref       Ref    `json:"ref"`
	Operation string `json:"operation"`
	OpID      string `json:"opID"`
	Revision  string `json:"revision"`
}

// RenderOutputsOutput is the merged MR (nil when the stack's manifests use no output or they
// already hold these values) and the files it changed.
type RenderOutputsOutput struct {
	MR    *forge.MergeRequest `json:"mr,omitempty"`
	Files []string            `json:"files,omitempty"`
}
