package terraform

import "context"

// SensitiveOutput stands in for a sensitive output's value: hooks are told it exists, never what it is.
const SensitiveOutput = "[sensitive]"

// Outputs reads the root module's outputs from the workspace's state (`terraform show -json`);
// empty when there is no state yet.
func (r *Runner) Outputs(ctx context.Context, ws Workspace) (map[string]any, error) {
	out := map[string]any{}
	c, err := r.open(ctx, ws, cmdShow)
	if err != nil {
		if r.noStateYet(ws, err) {
			return out, nil
		}
		return nil, err
	}
	st, err := c.tf.Show(ctx)
	if err != nil {
		return nil, c.fail(err)
	}
	if st.Values == nil {
		return out, nil
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
	return out, nil
}
