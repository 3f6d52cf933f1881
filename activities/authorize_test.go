package activities

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/slipway-dev/slipway/internal/approval"
	"github.com/slipway-dev/slipway/internal/config"
	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/forge/localgit"
	"github.com/slipway-dev/slipway/internal/identity"
	"github.com/slipway-dev/slipway/internal/policy"
	"github.com/slipway-dev/slipway/internal/terraform"
)

func authorizeInput(actor identity.Actor, op string) policy.Input {
	return policy.Input{Actor: actor, Operation: op, Tenant: "acme", Name: "web", State: "running", Stack: policy.Stack{Name: "web"}}
}

var (
	acmeAlice = identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "a", Name: "alice", Groups: []string{"tenant:acme"}}
	otherBob  = identity.Actor{Kind: identity.Person, Issuer: "https://idp.test", Subject: "b", Name: "bob", Groups: []string{"tenant:other"}}
)

func TestAuthorizeDecides(t *testing.T) {
	a := &Activities{Policy: policy.Default()}
	d, err := a.Authorize(context.Background(), authorizeInput(acmeAlice, "deploy"))
	require.NoError(t, err)
	require.True(t, d.Allow)
	require.Equal(t, policy.Default().Hash(), d.PolicyHash)

	d, err = a.Authorize(context.Background(), authorizeInput(otherBob, "deploy"))
	require.NoError(t, err)
	require.False(t, d.Allow)
	require.Contains(t, d.Reason, "tenant acme")

	// The decision crosses Temporal as JSON (a local activity's marker) and comes back the same.
	d, err = a.Authorize(context.Background(), authorizeInput(acmeAlice, "destroy"))
	require.NoError(t, err)
	raw, err := json.Marshal(d)
	require.NoError(t, err)
	var back policy.Decision
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, d, back)
	require.Equal(t, []string{"platform-admins"}, back.Approval.Groups)
}

// Without an injected engine the platform's default decides: never no policy at all.
func TestAuthorizeWithoutEngineUsesDefault(t *testing.T) {
	d, err := (&Activities{}).Authorize(context.Background(), authorizeInput(otherBob, "deploy"))
	require.NoError(t, err)
	require.False(t, d.Allow)
}

func TestAuthorizeBadInputIsNonRetryable(t *testing.T) {
	in := authorizeInput(acmeAlice, "deploy")
	in.Tenant = ""
	_, err := (&Activities{Policy: policy.Default()}).Authorize(context.Background(), in)
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, contract.ErrPolicyInput, ae.Type())
	require.True(t, ae.NonRetryable())
	var fields []contract.FieldError
	require.NoError(t, ae.Details(&fields))
	require.Equal(t, "tenant", fields[0].Field)
}

// A stack naming an approver group the platform never declared fails the step, naming it.
func TestAuthorizeUndeclaredGroupIsNonRetryable(t *testing.T) {
	in := authorizeInput(acmeAlice, "deploy")
	in.Stack.Approval = approval.Rule{Policy: approval.Always, Approvers: []string{"group:dba"}}
	_, err := (&Activities{Policy: policy.Default()}).Authorize(context.Background(), in)
	var ae *temporal.ApplicationError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, contract.ErrPolicy, ae.Type())
	require.True(t, ae.NonRetryable())
	require.Contains(t, ae.Error(), `"dba"`)
}

// An operator's bundle decides instead of the default.
func TestAuthorizeWithOperatorPolicy(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"),
		[]byte("package slipway\n\ndecision := {\"allow\": false, \"reason\": \"change freeze\"}\n"), 0o644))
	e, err := policy.Load(dir)
	require.NoError(t, err)
	d, err := (&Activities{Policy: e}).Authorize(context.Background(), authorizeInput(acmeAlice, "deploy"))
	require.NoError(t, err)
	require.False(t, d.Allow)
	require.Equal(t, "change freeze", d.Reason)
	require.Equal(t, e.Hash(), d.PolicyHash)
	require.NotEqual(t, policy.Default().Hash(), d.PolicyHash)
}

// The stack's stateful: reaches the pipeline's controls beside its approval rule.
func TestControlsCarryStateful(t *testing.T) {
	stack, err := config.LoadStack("db", map[string][]byte{config.SchemaFile: []byte("approval: never\nstateful: [aws_db_instance]\n")})
	require.NoError(t, err)
	c := controls(stack, &config.Instance{Stack: "db"})
	require.Equal(t, []string{"aws_db_instance"}, c.Stateful)
	require.Equal(t, approval.Never, c.Approval.Policy)
}

// planJSONOnly is a Terraform whose only use here is the stored plan's JSON.
type planJSONOnly struct {
	Terraform
	raw map[string]json.RawMessage
}

func (p planJSONOnly) PlanJSON(_ context.Context, _ terraform.Workspace, name string) (json.RawMessage, error) {
	return p.raw[name], nil
}

// At an approval the worker reads what the workflow names into the policy's input: the saved
// plan's JSON with its after values (a guardrail on an instance class reads it) in place of the
// summary's actions, and the diff of the instance file from the deployed revision. The policy
// never sees the names themselves.
func TestAuthorizeFillsThePlanAndTheConfigDiff(t *testing.T) {
	fg, err := localgit.Init(filepath.Join(t.TempDir(), "repo"), map[string][]byte{
		"instances/acme/web/instance.yaml": []byte("stack: db\nparameters:\n  class: db.t3.small\n")})
	require.NoError(t, err)
	deployed, err := fg.Head(t.Context())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "slipway.rego"), []byte(`package slipway

classes := {rc.change.after.instance_class | some rc in input.plan.resource_changes}

decision := {"allow": false, "reason": "no instance class above db.r5.large"} if {
	"db.r5.24xlarge" in classes
} else := {"allow": true, "reason": concat("|", [input.configDiff, json.marshal(object.get(input, "fill", null))])}
`), 0o644))
	e, err := policy.Load(dir)
	require.NoError(t, err)
	plan := func(class string) json.RawMessage {
		return json.RawMessage(`{"format_version":"1.2","resource_changes":[{"address":"aws_db_instance.main","type":"aws_db_instance","change":{"actions":["update"],"before":{"instance_class":"db.t3.small"},"after":{"instance_class":"` + class + `"}}}]}`)
	}
	a := &Activities{Policy: e, Forge: fg, Terraform: planJSONOnly{raw: map[string]json.RawMessage{"7-e1": plan("db.r5.24xlarge"), "8-e1": plan("db.r5.large")}}}
	in := authorizeInput(acmeAlice, "deploy")
	in.Plan = json.RawMessage(`{"resource_changes":[{"address":"aws_db_instance.main","type":"aws_db_instance","change":{"actions":["update"]}}]}`)
	in.Fill = &policy.Fill{Tenant: "acme", Name: "web", PlanName: "7-e1", Diff: true, DeployedRevision: deployed,
		ConfigYAML: "stack: db\nparameters:\n  class: db.r5.24xlarge\n"}
	d, err := a.Authorize(t.Context(), in)
	require.NoError(t, err)
	require.False(t, d.Allow, "the guardrail reads the plan's after value")
	require.Equal(t, "no instance class above db.r5.large", d.Reason)

	in.Fill.PlanName = "8-e1"
	d, err = a.Authorize(t.Context(), in)
	require.NoError(t, err)
	require.True(t, d.Allow, d.Reason)
	diff, fill, _ := strings.Cut(d.Reason, "|")
	require.Contains(t, diff, "--- a/instances/acme/web/instance.yaml\n+++ b/instances/acme/web/instance.yaml\n")
	require.Contains(t, diff, "-  class: db.t3.small\n+  class: db.r5.24xlarge\n")
	require.Equal(t, "null", fill, "the policy never sees what the worker filled in from")
}
