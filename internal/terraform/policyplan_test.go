package terraform

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// The plan a policy reads is terraform's own JSON plan with before and after values, kept in
// the plan store beside the plan: a guardrail reads an attribute's new value there, and no
// value terraform marks sensitive (nor one that holds it, nor a sensitive output) is in it.
func TestPlanJSONHasValuesWithSecretsMasked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newRunner(t)
	ws := Workspace{Tenant: "acme", Name: "policy-json"}
	cfg := func(secret, class string) map[string][]byte {
		return map[string][]byte{"main.tf": []byte(`
resource "terraform_data" "db" {
  input = { token = sensitive("` + secret + `"), instance_class = "` + class + `" }
}
output "dsn" {
  value     = "postgres://u:` + secret + `@db"
  sensitive = true
}`)}
	}
	ready(t, r, ws, cfg("hunter2-old", "db.t3.small"))
	p, err := r.Plan(ctx, ws, "deploy", false)
	require.NoError(t, err)
	_, err = r.Apply(ctx, ws, p)
	require.NoError(t, err)

	require.NoError(t, r.Prepare(ctx, ws, cfg("hunter2-new", "db.r5.24xlarge")))
	_, err = r.Plan(ctx, ws, "update", false)
	require.NoError(t, err)
	raw, err := r.PlanJSON(ctx, ws, "update")
	require.NoError(t, err)
	require.NotContains(t, string(raw), "hunter2", "a sensitive value reached the policy's plan")

	var plan struct {
		FormatVersion   string `json:"format_version"`
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Actions []string                       `json:"actions"`
				Before  struct{ Input map[string]any } `json:"before"`
				After   struct{ Input map[string]any } `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
		OutputChanges map[string]struct {
			After any `json:"after"`
		} `json:"output_changes"`
	}
	require.NoError(t, json.Unmarshal(raw, &plan), string(raw))
	require.NotEmpty(t, plan.FormatVersion)
	require.Len(t, plan.ResourceChanges, 1, string(raw))
	c := plan.ResourceChanges[0].Change
	require.Equal(t, "terraform_data.db", plan.ResourceChanges[0].Address)
	require.Equal(t, "db.t3.small", c.Before.Input["instance_class"])
	require.Equal(t, "db.r5.24xlarge", c.After.Input["instance_class"], "a guardrail reads the new value")
	require.Equal(t, SensitiveValue, c.Before.Input["token"])
	require.Equal(t, SensitiveValue, c.After.Input["token"])
	require.Equal(t, SensitiveValue, plan.OutputChanges["dsn"].After)

	missing, err := r.PlanJSON(ctx, ws, "never-made")
	require.NoError(t, err)
	require.Nil(t, missing, "no plan stored: nothing to read")
}
