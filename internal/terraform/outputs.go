package terraform

import (
	"context"
	"strings"

	tfjson "github.com/hashicorp/terraform-json"
)

// SensitiveOutput stands in for a sensitive output's value: hooks are told it exists, never what it is.
const SensitiveOutput = "[sensitive]"

// Outputs reads the root module's outputs from the workspace's state (`terraform show -json`);
// empty when there is no state yet.
func (r *Runner) Outputs(ctx context.Context, ws Workspace) (map[string]any, error) {
	st, err := r.show(ctx, ws)
	if err != nil {
		return nil, err
	}
	return outputsOf(st), nil
}

// outputsOf is st's root outputs, sensitive ones masked.
func outputsOf(st *tfjson.State) map[string]any {
	out := map[string]any{}
	if st == nil || st.Values == nil {
		return out
	}
	for name, o := range st.Values.Outputs {
		if o == nil {
			continue
		}
		if o.Sensitive {
			out[name] = SensitiveOutput
			continue
		}
		out[name] = o.Value
	}
	return out
}

// SecretOutputs reads the values of the named root outputs, sensitive ones included, for the
// instance's Secret; a name not in the state is a *MissingOutputsError. The caller keeps the
// values out of history and logs.
func (r *Runner) SecretOutputs(ctx context.Context, ws Workspace, names []string) (map[string]any, error) {
	out := map[string]any{}
	if len(names) == 0 {
		return out, nil
	}
	st, err := r.show(ctx, ws)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, n := range names {
		var o *tfjson.StateOutput
		if st != nil && st.Values != nil {
			o = st.Values.Outputs[n]
		}
		if o == nil {
			missing = append(missing, n)
			continue
		}
		out[n] = o.Value
	}
	if len(missing) > 0 {
		return nil, &MissingOutputsError{Names: missing}
	}
	return out, nil
}

// MissingOutputsError names outputs a stack asked for that its state does not have.
type MissingOutputsError struct{ Names []string }

func (e *MissingOutputsError) Error() string {
	return "terraform: the state has no output " + strings.Join(e.Names, ", ") + " (named in schema.outputs.secret)"
}
