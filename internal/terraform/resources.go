package terraform

import (
	"context"
	"errors"
	"os"
	"sort"

	tfjson "github.com/hashicorp/terraform-json"
)

// Resource is one managed resource instance in the state.
type Resource struct {
	Address, Type, Name string
	Tainted             bool
}

// Resources lists the managed resources in the workspace's state (`terraform show -json`),
// sorted by address; empty when there is no state. Data sources are left out.
func (r *Runner) Resources(ctx context.Context, ws Workspace) ([]Resource, error) {
	st, err := r.show(ctx, ws)
	if err != nil {
		return nil, err
	}
	return resourcesOf(st), nil
}

// resourcesOf is st's managed resources, sorted by address.
func resourcesOf(st *tfjson.State) []Resource {
	out := []Resource{}
	if st != nil && st.Values != nil {
		out = collect(out, st.Values.RootModule)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

func collect(out []Resource, m *tfjson.StateModule) []Resource {
	if m == nil {
		return out
	}
	for _, res := range m.Resources {
		if res != nil && res.Mode == tfjson.ManagedResourceMode {
			out = append(out, Resource{Address: res.Address, Type: res.Type, Name: res.Name, Tainted: res.Tainted})
		}
	}
	for _, child := range m.ChildModules {
		out = collect(out, child)
	}
	return out
}

// noStateYet is true when a local workspace was never prepared and has no state file, so
// "no resources" is the truth rather than a guess. pg state may exist without a working dir.
func (r *Runner) noStateYet(ws Workspace, openErr error) bool {
	var ce *CommandError
	if r.Backend() != backendLocal || !errors.As(openErr, &ce) || !errors.Is(ce.Err, errNotPrepared) {
		return false
	}
	st, err := os.Stat(r.statePath(ws))
	return errors.Is(err, os.ErrNotExist) || (err == nil && st.Size() == 0)
}
