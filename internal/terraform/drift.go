package terraform

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	tfjson "github.com/hashicorp/terraform-json"
)

// driftPlan is the scratch plan a drift check writes; it is never stored or applied.
const driftPlan = scratchPrefix + "drift" + planExt

// DriftReport is what a drift check found. Outside lists the resources whose real objects
// changed outside terraform (the plan's resource_drift, what `plan -refresh-only` reports);
// Pending the ones an apply of the deployed config would change, which also catches edits
// of the state itself and of resources without a remote object (terraform_data).
type DriftReport struct {
	Outside []ResourceChange
	Pending []ResourceChange
}

// Drifted reports whether anything differs from the deployed config.
func (d DriftReport) Drifted() bool { return len(d.Outside) > 0 || len(d.Pending) > 0 }

// Drift plans the prepared configuration against the refreshed state and reports the
// differences. It writes nothing but a scratch plan file, which it removes: the state, the
// plan store and the infrastructure stay as they are.
func (r *Runner) Drift(ctx context.Context, ws Workspace) (*DriftReport, error) {
	c, err := r.open(ctx, ws, "plan")
	if err != nil {
		return nil, err
	}
	defer c.close()
	file := filepath.Join(r.Dir(ws), driftPlan)
	defer os.Remove(file)
	p, err := r.planTo(ctx, c, ws, file, false)
	if err != nil {
		return nil, err
	}
	return &DriftReport{Outside: changes(p.ResourceDrift), Pending: summarize(p).Resources}, nil
}

// changes lists the resource changes that are more than a no-op, sorted by address.
func changes(rcs []*tfjson.ResourceChange) []ResourceChange {
	var out []ResourceChange
	for _, rc := range rcs {
		if rc == nil || rc.Change == nil || rc.Change.Actions.NoOp() || rc.Change.Actions.Read() {
			continue
		}
		out = append(out, ResourceChange{Address: rc.Address, Type: rc.Type, Name: rc.Name, Actions: actionNames(rc.Change.Actions)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}
