package contract

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The policy's input.plan is terraform's show JSON trimmed to resource_changes: addresses, types
// and actions, nothing of the values; a summary from before types were kept reads them from the address.
func TestPolicyJSONIsTheShowJSONTrimmedToResourceChanges(t *testing.T) {
	s := PlanSummary{Add: 1, Destroy: 2, Resources: []ResourceChange{
		{Address: "terraform_data.app", Type: "terraform_data", Name: "app", Actions: []string{"delete", "create"}},
		{Address: "module.db.aws_db_instance.main[0]", Actions: []string{"delete"}},
		{Address: "data.aws_ami.base", Actions: []string{"read"}},
	}}
	var got struct {
		ResourceChanges []struct {
			Address, Mode, Type, Name string
			Change                    struct{ Actions []string }
		} `json:"resource_changes"`
	}
	raw := s.PolicyJSON()
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Len(t, got.ResourceChanges, 3)
	assert.Equal(t, "terraform_data", got.ResourceChanges[0].Type)
	assert.Equal(t, []string{"delete", "create"}, got.ResourceChanges[0].Change.Actions)
	assert.Equal(t, "aws_db_instance", got.ResourceChanges[1].Type)
	assert.Equal(t, "main", got.ResourceChanges[1].Name)
	assert.Equal(t, "aws_ami", got.ResourceChanges[2].Type)
	assert.NotContains(t, string(raw), "before")
	assert.JSONEq(t, `{"resource_changes":[]}`, string(PlanSummary{NoChanges: true}.PolicyJSON()), "no changes is an empty list, not null")
}
