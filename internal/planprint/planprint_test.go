package planprint

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/slipway-dev/slipway/internal/contract"
)

func rc(addr, typ string, acts []string, paths ...string) contract.ResourceChange {
	r := contract.ResourceChange{Address: addr, Type: typ, Actions: acts}
	for _, p := range paths {
		r.Attributes = append(r.Attributes, contract.AttributeChange{Path: p, Before: "1", After: "2"})
	}
	return r
}

var (
	update  = []string{"update"}
	replace = []string{"delete", "create"}
)

func TestSameShapeSameHashWhateverTheValuesAndKeys(t *testing.T) {
	a := contract.PlanSummary{Change: 2, Resources: []contract.ResourceChange{
		rc(`aws_db_parameter_group.main`, "aws_db_parameter_group", update, "parameter.0.value", "tags.env"),
		rc(`module.app["acme"].aws_instance.web[0]`, "aws_instance", update, "instance_type"),
		rc(`module.app["acme"].aws_instance.web[1]`, "aws_instance", update, "instance_type"),
	}}
	b := contract.PlanSummary{Change: 2, Resources: []contract.ResourceChange{
		rc(`module.app["globex"].aws_instance.web[7]`, "aws_instance", update, "instance_type"),
		rc(`aws_db_parameter_group.main`, "aws_db_parameter_group", update, "tags.team", "parameter.3.value"),
	}}
	fa, fb := Of(a, nil), Of(b, nil)
	assert.Equal(t, fa.Hash, fb.Hash, "instance keys, list indexes, values and order do not change the shape")
	assert.Len(t, fa.Hash, 12)
	assert.Equal(t, []contract.PlanEntry{
		{Resource: "aws_db_parameter_group.main", Action: "update", Attributes: []string{"parameter", "tags"}},
		{Resource: "module.app.aws_instance.web", Action: "update", Attributes: []string{"instance_type"}},
	}, fa.Entries)
	assert.Equal(t, "update aws_db_parameter_group.main (2 attributes); update module.app.aws_instance.web (1 attribute)", fa.Summary)
	assert.Empty(t, fa.Stateful)
}

func TestDifferentShapesDiffer(t *testing.T) {
	base := contract.PlanSummary{Resources: []contract.ResourceChange{rc("aws_db_instance.main", "aws_db_instance", update, "engine_version")}}
	seen := map[string]string{Of(base, nil).Hash: "base"}
	for name, s := range map[string]contract.PlanSummary{
		"another attribute": {Resources: []contract.ResourceChange{rc("aws_db_instance.main", "aws_db_instance", update, "engine_version", "storage")}},
		"another action":    {Resources: []contract.ResourceChange{rc("aws_db_instance.main", "aws_db_instance", replace, "engine_version")}},
		"another resource":  {Resources: []contract.ResourceChange{rc("aws_db_instance.other", "aws_db_instance", update, "engine_version")}},
		"no changes":        {NoChanges: true},
		"outputs only":      {},
	} {
		h := Of(s, nil).Hash
		if prev, dup := seen[h]; dup {
			t.Errorf("%s has the hash of %s", name, prev)
		}
		seen[h] = name
	}
	assert.Equal(t, "no changes", Of(contract.PlanSummary{NoChanges: true}, nil).Summary)
	assert.Equal(t, "outputs only", Of(contract.PlanSummary{}, nil).Summary)
}

func TestStatefulReplaceOrDeleteIsFlagged(t *testing.T) {
	s := contract.PlanSummary{Resources: []contract.ResourceChange{
		rc("aws_db_instance.main", "aws_db_instance", replace, "engine"),
		rc("aws_s3_bucket.logs[0]", "aws_s3_bucket", []string{"delete"}),
		rc("aws_db_parameter_group.main", "aws_db_parameter_group", replace),
		rc("aws_ebs_volume.data", "aws_ebs_volume", update, "size"),
	}}
	fp := Of(s, []string{"aws_db_instance", "aws_s3_bucket.logs", "aws_ebs_volume"})
	assert.Equal(t, []string{"aws_db_instance.main", "aws_s3_bucket.logs"}, fp.Stateful, "an update of a stateful resource loses nothing; an unlisted replace is not stateful")
	assert.Equal(t, "replace aws_db_instance.main (stateful!); replace aws_db_parameter_group.main; update aws_ebs_volume.data (1 attribute); delete aws_s3_bucket.logs (stateful!)", fp.Summary)
	require.NotEqual(t, Of(s, nil).Hash, fp.Hash, "the flag is part of the shape an approver sees")
}

func TestUnkeyed(t *testing.T) {
	for in, want := range map[string]string{
		"aws_instance.web":                            "aws_instance.web",
		"aws_instance.web[3]":                         "aws_instance.web",
		`module.db["a.b[c]"].aws_db_instance.main[0]`: "module.db.aws_db_instance.main",
		`aws_s3_bucket.b["quote \" ] inside"]`:        "aws_s3_bucket.b",
		"data.aws_ami.ubuntu":                         "data.aws_ami.ubuntu",
	} {
		assert.Equal(t, want, Unkeyed(in), in)
	}
}

func TestTheCountOfHiddenAttributesIsNoAttribute(t *testing.T) {
	s := contract.PlanSummary{Resources: []contract.ResourceChange{rc("x.y", "x", update, "a", "(3 more attribute(s) not shown)")}}
	assert.Equal(t, []string{"a"}, Of(s, nil).Entries[0].Attributes)
}
