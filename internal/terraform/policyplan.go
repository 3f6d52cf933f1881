package terraform

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	tfjson "github.com/hashicorp/terraform-json"
)

// PolicyJSON is `terraform show -json` of a plan as a policy reads it: format and terraform
// versions, every resource change and output change with its before and after values, each
// value terraform marks sensitive on either side (or that holds such a value) replaced by
// SensitiveValue. The configuration, variables, prior state and drift are left out: they hold
// values terraform does not always mark.
func PolicyJSON(p *tfjson.Plan) (json.RawMessage, error) {
	out := struct {
		FormatVersion    string                    `json:"format_version,omitempty"`
		TerraformVersion string                    `json:"terraform_version,omitempty"`
		ResourceChanges  []*tfjson.ResourceChange  `json:"resource_changes"`
		OutputChanges    map[string]*tfjson.Change `json:"output_changes,omitempty"`
	}{FormatVersion: p.FormatVersion, TerraformVersion: p.TerraformVersion, ResourceChanges: []*tfjson.ResourceChange{}}
	for _, rc := range p.ResourceChanges {
		if rc == nil {
			continue
		}
		c := *rc
		c.Change = maskedChange(rc.Change)
		out.ResourceChanges = append(out.ResourceChanges, &c)
	}
	for name, oc := range p.OutputChanges {
		if out.OutputChanges == nil {
			out.OutputChanges = map[string]*tfjson.Change{}
		}
		out.OutputChanges[name] = maskedChange(oc)
	}
	return json.Marshal(out)
}

// maskedChange is c with its values masked as attributeChanges masks them, and without the
// configuration terraform generated for an import.
func maskedChange(c *tfjson.Change) *tfjson.Change {
	if c == nil {
		return nil
	}
	before, after := map[string]any{}, map[string]any{}
	flatten("", c.Before, before)
	flatten("", c.After, after)
	secrets := sensitiveLeaves(before, c.BeforeSensitive, after, c.AfterSensitive)
	m := func(v any) any { return mask(v, "", c.BeforeSensitive, c.AfterSensitive, secrets) }
	return &tfjson.Change{Actions: c.Actions, Before: m(c.Before), After: m(c.After), AfterUnknown: c.AfterUnknown,
		BeforeSensitive: c.BeforeSensitive, AfterSensitive: c.AfterSensitive, Importing: c.Importing, ReplacePaths: c.ReplacePaths}
}

// mask copies v, replacing each part either mask marks, and each leaf that holds a secret.
func mask(v any, path string, bmask, amask any, secrets secretSet) any {
	if v == nil {
		return nil
	}
	if marked(bmask, path) || marked(amask, path) {
		return SensitiveValue
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = mask(x, join(path, k), bmask, amask, secrets)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = mask(x, join(path, strconv.Itoa(i)), bmask, amask, secrets)
		}
		return out
	}
	if secrets.hold(v) {
		return SensitiveValue
	}
	return v
}

// PlanJSON is the policy's JSON (PolicyJSON) of the plan stored under name; nil for a plan
// stored before it was kept, or none stored.
func (r *Runner) PlanJSON(ctx context.Context, ws Workspace, name string) (json.RawMessage, error) {
	saved, err := r.plans.LoadPlan(ctx, ws, name)
	var missing *PlanNotStoredError
	if errors.As(err, &missing) {
		return nil, nil
	}
	if err != nil {
		return nil, storeErr(ws, "plan", err)
	}
	return saved.Policy, nil
}
